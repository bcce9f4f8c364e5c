import { protectedResourcePaths } from './openapi-protected-resource.ts';
import { RUN_STATUSES, RUN_STRATEGY_LABELS } from '../core/runs.ts';
import { MAX_RUN_SEARCH_LENGTH } from '../core/run-filter.ts';
import { AUTH_ERRORS, BROWSER_ERRORS, error, json, ref, type Schema } from './openapi-helpers.ts';
import { schemas } from './openapi-schemas.ts';
import { sessionPaths } from './openapi-session.ts';
import { oidcLoginPaths } from './openapi-oidc-login.ts';
import { approvalPaths } from './openapi-approvals.ts';
import { uiChatPaths } from './openapi-ui-chat.ts';
import { chatPaths } from './openapi-chat.ts';
import { forkPaths } from './openapi-fork.ts';
import { statsPaths } from './openapi-stats.ts';
import { SUMMARY_FIELDS, SUMMARY_TEXT_LIMIT } from './run-summary.ts';
import { CSRF_HEADER, SESSION_COOKIE } from './session.ts';

const runIdParam = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'The run id (run_…).',
};

const SSE_DESCRIPTION =
  'Server-sent events: `id: <event id>`, `event: <type>`, `data: <RunEvent JSON>`. History first, then live; ' +
  'the stream ends after the terminal event. `: ping` comments keep idle connections open. A client that reads too ' +
  'slowly gets `event: overflow` (no id) and should reconnect with Last-Event-ID.';

const sseContent = { 'text/event-stream': { schema: { type: 'string', description: SSE_DESCRIPTION } } };

const paths: Record<string, Record<string, Schema>> = {
  '/v1/runs': {
    post: {
      summary: 'Start a run',
      parameters: [
        {
          name: 'Idempotency-Key',
          in: 'header',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
          description: 'Retries with the same key and body return the same run.',
        },
        {
          name: 'stream',
          in: 'query',
          schema: { type: 'boolean' },
          description: 'Answer with the run’s event stream instead of the run.',
        },
        {
          name: 'wait',
          in: 'query',
          schema: { type: 'string', enum: ['first-turn'] },
          description:
            'Hold the answer until the first model turn succeeded; a failing ' +
            'first turn is answered with its HTTP status (401, 429, 502, 504).',
        },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: ref('StartRunRequest') } } },
      responses: {
        '201': json(ref('Run'), 'The run was created.'),
        '200': {
          description: 'The Idempotency-Key matched an existing run; with ?stream=true, the run’s events.',
          content: { 'application/json': { schema: ref('Run') }, ...sseContent },
        },
        '400': error('Invalid body or parameters, or a model the caller may not use (model_not_allowed).'),
        ...AUTH_ERRORS,
        ...BROWSER_ERRORS,
        '413': error('Body too large.'),
        '415': error('Body is not JSON.'),
        '422': error('The Idempotency-Key was used with another body.'),
        '429': {
          ...error(
            '`overloaded`: this server has server.queueLimit runs waiting for a slot (no run was created; ' +
              'retry after Retry-After seconds), or (?wait=first-turn) the model endpoint rate-limited the first turn.',
          ),
          headers: {
            'Retry-After': {
              schema: { type: 'integer', minimum: 0 },
              description: 'Seconds to wait before retrying (overloaded).',
            },
          },
        },
        '502': error('?wait=first-turn: the model endpoint failed the first turn.'),
        '503': error('Shutting down, or no tool server reachable (tool_unavailable).'),
        '504': error('?wait=first-turn: the model endpoint timed out on the first turn.'),
      },
    },
    get: {
      summary: 'List runs, newest first',
      parameters: [
        { name: 'status', in: 'query', schema: { type: 'string', enum: [...RUN_STATUSES] } },
        { name: 'threadId', in: 'query', schema: { type: 'string' } },
        {
          name: 'strategy',
          in: 'query',
          schema: { type: 'string', enum: [...RUN_STRATEGY_LABELS] },
          description:
            'Runs driven with this strategy, or `gateway` for gateway ' +
            'sessions (runs stored before settings were kept match none).',
        },
        {
          name: 'q',
          in: 'query',
          schema: { type: 'string', maxLength: MAX_RUN_SEARCH_LENGTH },
          description:
            'Runs whose input or id contains this text (case-insensitive). With strategy ' +
            'or q a page may hold fewer than limit runs and still have a nextCursor.',
        },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200 } },
        { name: 'cursor', in: 'query', schema: { type: 'string' }, description: 'nextCursor of the previous page.' },
        {
          name: 'fields',
          in: 'query',
          schema: { type: 'string' },
          description:
            `Comma-separated fields of each summary: ` + `${SUMMARY_FIELDS.join(', ')} (default: all but metadata).`,
        },
      ],
      responses: {
        '200': json(
          {
            type: 'object',
            required: ['runs'],
            properties: {
              runs: {
                type: 'array',
                items: {
                  type: 'object',
                  description:
                    `A run summary: input, output and an error message cut to ${SUMMARY_TEXT_LIMIT} ` +
                    (`characters (named in truncated), pendingApproval without arguments, no ` +
                      `context, strategy from the run's settings. GET /v1/runs/{id} has the whole run.`),
                  properties: {
                    strategy: {
                      type: 'string',
                      enum: [...RUN_STRATEGY_LABELS],
                      description:
                        'settings.strategy, or `gateway` for a gateway session; ' +
                        'absent on runs stored before settings were kept.',
                    },
                    truncated: { type: 'array', items: { type: 'string' } },
                  },
                },
              },
              nextCursor: { type: 'string' },
            },
          },
          'One page of run summaries.',
        ),
        '400': error('Invalid parameters.'),
        ...AUTH_ERRORS,
      },
    },
  },
  '/v1/runs/{id}': {
    get: {
      summary: 'Get a run',
      parameters: [runIdParam],
      responses: { '200': json(ref('Run'), 'The run.'), ...AUTH_ERRORS, '404': error('No such run for this tenant.') },
    },
  },
  '/v1/runs/{id}/events': {
    get: {
      summary: 'Follow a run’s events',
      parameters: [
        runIdParam,
        {
          name: 'Last-Event-ID',
          in: 'header',
          schema: { type: 'integer', minimum: 0 },
          description: 'Resume after this event (wins over ?after).',
        },
        { name: 'after', in: 'query', schema: { type: 'integer', minimum: 0 } },
        { name: 'format', in: 'query', schema: { type: 'string', enum: ['sse', 'json', 'jsonl'] } },
      ],
      responses: {
        '200': {
          description:
            'The events after the resume point, then live ones; with ?format=json, the log at once; with ' +
            ('?format=jsonl, the log as a download (`Content-Disposition: ' +
              'attachment; filename="<run id>.jsonl"`), one RunEvent per line.'),
          content: {
            ...sseContent,
            'application/json': {
              schema: {
                type: 'object',
                required: ['events'],
                properties: { events: { type: 'array', items: ref('RunEvent') } },
              },
            },
            'application/x-ndjson': { schema: { type: 'string', description: 'One RunEvent as JSON per line.' } },
          },
        },
        '400': error('Invalid Last-Event-ID or parameters.'),
        ...AUTH_ERRORS,
        '404': error('No such run for this tenant.'),
      },
    },
  },
  '/v1/runs/{id}/input': {
    post: {
      summary: 'Answer an approval or send a message',
      parameters: [runIdParam],
      requestBody: { required: true, content: { 'application/json': { schema: ref('RunInput') } } },
      responses: {
        '202': json(
          ref('Run'),
          'The input was recorded; the run as it stands after it (a ' +
            'decision moves it back to `running`, without `pendingApproval`).',
        ),
        '400': error('Invalid body.'),
        ...AUTH_ERRORS,
        ...BROWSER_ERRORS,
        '404': error('No such run for this tenant.'),
        '409': error('No such call is waiting for a decision.'),
      },
    },
  },
  '/v1/runs/{id}/cancel': {
    post: {
      summary: 'Cancel a run',
      parameters: [runIdParam],
      responses: {
        '202': json(
          ref('Run'),
          'The cancel request was recorded (`cancel_requested`); the run once its owner ' +
            'ended it (`cancelled`), or as it stands if that takes longer than two leases.',
        ),
        ...AUTH_ERRORS,
        ...BROWSER_ERRORS,
        '404': error('No such run for this tenant.'),
        '409': error('The run has already finished.'),
      },
    },
  },
  ...forkPaths,
  ...statsPaths,
  '/v1/tools': {
    get: {
      summary: 'Tools this tenant may use',
      responses: {
        '200': json(
          {
            type: 'object',
            required: ['tools', 'servers'],
            properties: {
              tools: { type: 'array', items: ref('Tool') },
              servers: { type: 'array', items: ref('ToolServer') },
            },
          },
          'The tools, and the state of every tool server.',
        ),
        ...AUTH_ERRORS,
      },
    },
  },
  ...sessionPaths,
  ...oidcLoginPaths,
  ...approvalPaths,
  ...protectedResourcePaths,
  ...uiChatPaths,
  ...chatPaths,
  '/healthz': {
    get: {
      summary: 'Liveness',
      security: [],
      responses: { '200': json({ type: 'object', properties: { status: { const: 'ok' } } }, 'The process answers.') },
    },
    head: {
      summary: 'Liveness, without a body',
      security: [],
      responses: { '200': { description: 'The process answers.' } },
    },
  },
  '/readyz': {
    get: {
      summary: 'Readiness',
      security: [],
      responses: {
        '200': json(
          {
            type: 'object',
            properties: { status: { const: 'ready' }, servers: { type: 'array', items: ref('ToolServer') } },
          },
          'Ready to take runs (tool servers that are down are listed with the cause).',
        ),
        '503': json(
          {
            type: 'object',
            properties: {
              status: { const: 'not_ready' },
              reason: { type: 'string' },
              servers: { type: 'array', items: ref('ToolServer') },
            },
          },
          'Not ready.',
        ),
      },
    },
    head: {
      summary: 'Readiness, without a body',
      security: [],
      responses: { '200': { description: 'Ready to take runs.' }, '503': { description: 'Not ready.' } },
    },
  },
  '/openapi.json': {
    get: { summary: 'This document', security: [], responses: { '200': json({ type: 'object' }, 'OpenAPI 3.1.') } },
  },
  '/metrics': {
    get: {
      summary:
        'Prometheus metrics (toolgate_*), in the text exposition format; behind an API key when ' +
        'the server has keys. 404 when server.metricsPort serves them on a port of their own',
      responses: {
        '200': { description: 'text/plain; version=0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } },
        '404': { description: 'served elsewhere, or not exported' },
      },
    },
  },
};

/** The OpenAPI 3.1 description of the runs API (served at /openapi.json). */
export function buildOpenApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'toolgate runs API',
      version: '1',
      description:
        'Start runs, follow them over SSE, resume after a disconnect, ' +
        'answer approvals. Errors are always {"error": {"code", "message"}}.',
    },
    security: [{ bearer: [] }, { session: [] }],
    paths: structuredClone(paths),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key configured for a tenant.' },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description:
            `The session cookie from POST /v1/session (a browser on this origin). Requests ` +
            (`other than GET/HEAD also send ${CSRF_HEADER} with the ` +
              `session's csrfToken. A bearer header wins when both are sent.`),
        },
      },
      schemas: structuredClone(schemas),
    },
  };
}
