import { ERROR_CODES } from '../core/errors.ts';
import { RUN_EVENT_TYPES } from '../core/events.ts';
import { STRATEGY_NAMES } from '../core/runs.ts';
import { RUN_STATUSES } from '../core/runs.ts';
import { SUMMARY_FIELDS, SUMMARY_TEXT_LIMIT } from './run-summary.ts';
import { MAX_STEPS_LIMIT } from './schemas.ts';

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Schema, description: string): Schema => ({ description, content: { 'application/json': { schema } } });
const error = (description: string): Schema => json(ref('Error'), description);
const runIdParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'The run id (run_…).' };
const jsonObject: Schema = { type: 'object', additionalProperties: true };

const AUTH_ERRORS = { '401': error('Missing or invalid API key.') };

const schemas: Record<string, Schema> = {
  ErrorInfo: {
    type: 'object',
    required: ['code', 'message'],
    properties: { code: { type: 'string', enum: [...ERROR_CODES] }, message: { type: 'string' } },
  },
  Error: { type: 'object', required: ['error'], properties: { error: ref('ErrorInfo') } },
  Usage: {
    type: 'object',
    required: ['promptTokens', 'completionTokens', 'totalTokens'],
    properties: { promptTokens: { type: 'integer' }, completionTokens: { type: 'integer' }, totalTokens: { type: 'integer' } },
  },
  PendingApproval: {
    type: 'object',
    required: ['toolCallId', 'name', 'arguments', 'effect', 'reason', 'eventId'],
    properties: {
      toolCallId: { type: 'string' },
      name: { type: 'string' },
      arguments: jsonObject,
      effect: { type: 'string', enum: ['read', 'write'] },
      reason: { type: 'string', enum: ['policy', 'outcome_unknown'] },
      eventId: { type: 'integer' },
    },
  },
  Run: {
    type: 'object',
    required: ['id', 'status', 'input', 'model', 'createdAt', 'updatedAt', 'usage', 'steps', 'lastEventId'],
    properties: {
      id: { type: 'string' },
      status: { type: 'string', enum: [...RUN_STATUSES] },
      input: { type: 'string' },
      model: { type: 'string' },
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
      tenantId: { type: 'string' },
      userId: { type: 'string' },
      threadId: { type: 'string' },
      output: { type: 'string' },
      error: ref('ErrorInfo'),
      usage: ref('Usage'),
      steps: { type: 'integer' },
      lastEventId: { type: 'integer', description: 'Id of the last event appended; resume the event stream from here.' },
      metadata: jsonObject,
      context: jsonObject,
      dryRun: { type: 'boolean' },
      settings: ref('RunSettings'),
      pendingApproval: ref('PendingApproval'),
    },
  },
  RunSettings: {
    type: 'object',
    description: 'How the run is driven: fixed when it is created, stored with it, used by whichever process drives it.',
    properties: {
      maxSteps: { type: 'integer', minimum: 1 },
      strategy: { type: 'string', enum: [...STRATEGY_NAMES] },
      toolMode: { type: 'string', enum: ['native', 'prompted', 'auto'] },
      parseRetries: { type: 'integer', minimum: 0 },
      textToolCalls: { type: 'string', enum: ['never', 'auto', 'always'] },
      constrain: { type: 'boolean' },
      stream: { type: 'boolean' },
    },
  },
  RunEvent: {
    type: 'object',
    description: 'One entry of a run log; docs/events.md describes `data` for each type.',
    required: ['id', 'runId', 'type', 'time', 'data'],
    properties: {
      id: { type: 'integer', minimum: 1 },
      runId: { type: 'string' },
      type: { type: 'string', enum: [...RUN_EVENT_TYPES] },
      time: { type: 'string', format: 'date-time' },
      data: jsonObject,
    },
  },
  StartRunRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['input'],
    properties: {
      input: { type: 'string', minLength: 1 },
      threadId: { type: 'string', minLength: 1, maxLength: 255 },
      model: { type: 'string', description: '"provider:model"; default: the configured model.' },
      strategy: { type: 'string', description: `One of: ${STRATEGY_NAMES.join(', ')} (default: the configured strategy, then react); another name is refused with 400.` },
      todo: { type: 'boolean', description: 'Offer the built-in todo tools (todo_write, todo_read); default: config todo.enabled.' },
      dryRun: { type: 'boolean' },
      context: { ...jsonObject, description: 'Values for injected arguments; never shown to the model.' },
      metadata: jsonObject,
      maxSteps: { type: 'integer', minimum: 1, maximum: MAX_STEPS_LIMIT },
    },
  },
  RunInput: {
    oneOf: [
      {
        type: 'object',
        additionalProperties: false,
        required: ['type', 'toolCallId', 'decision'],
        properties: {
          type: { const: 'approval' },
          toolCallId: { type: 'string' },
          decision: {
            type: 'string',
            enum: ['approve', 'reject', 'edit', 'mark_done'],
            description: '"mark_done" only for a call whose outcome is unknown: it did happen; it is recorded, not executed again.',
          },
          arguments: { ...jsonObject, description: 'Required when decision is "edit".' },
          reason: { type: 'string' },
          result: { description: 'With "mark_done": what a person saw of the call (text or JSON).' },
        },
      },
      {
        type: 'object',
        additionalProperties: false,
        required: ['type', 'text'],
        properties: { type: { const: 'message' }, text: { type: 'string', minLength: 1 } },
      },
    ],
  },
  ToolServer: {
    type: 'object',
    required: ['name', 'state', 'tools', 'since', 'failures'],
    properties: {
      name: { type: 'string' },
      state: { type: 'string', enum: ['connecting', 'up', 'down'] },
      tools: { type: 'integer', description: 'Tools it offers (the last known list while it is down).' },
      error: { type: 'string', description: 'Why it is down.' },
      since: { type: 'string', format: 'date-time' },
      failures: { type: 'integer', description: 'Failed attempts in a row.' },
      retryAt: { type: 'string', format: 'date-time', description: 'When it is tried again.' },
    },
  },
  Tool: {
    type: 'object',
    required: ['name', 'description', 'inputSchema', 'annotations', 'origin', 'effect', 'available'],
    properties: {
      name: { type: 'string' },
      description: { type: 'string' },
      inputSchema: jsonObject,
      annotations: jsonObject,
      origin: {
        type: 'object',
        required: ['kind', 'server', 'tool'],
        properties: { kind: { type: 'string', enum: ['mcp', 'local', 'builtin'] }, server: { type: 'string' }, tool: { type: 'string' } },
      },
      effect: { type: 'string', enum: ['read', 'write'] },
      available: { type: 'boolean', description: 'false while its server is down (the last known listing); runs do not get it until the server is back.' },
    },
  },
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
        { name: 'Idempotency-Key', in: 'header', schema: { type: 'string', minLength: 1, maxLength: 255 }, description: 'Retries with the same key and body return the same run.' },
        { name: 'stream', in: 'query', schema: { type: 'boolean' }, description: 'Answer with the run’s event stream instead of the run.' },
        {
          name: 'wait',
          in: 'query',
          schema: { type: 'string', enum: ['first-turn'] },
          description: 'Hold the answer until the first model turn succeeded; a failing first turn is answered with its HTTP status (401, 429, 502, 504).',
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
        '413': error('Body too large.'),
        '415': error('Body is not JSON.'),
        '422': error('The Idempotency-Key was used with another body.'),
        '429': {
          ...error('`overloaded`: this server has server.queueLimit runs waiting for a slot (no run was created; retry after Retry-After seconds), or (?wait=first-turn) the model endpoint rate-limited the first turn.'),
          headers: { 'Retry-After': { schema: { type: 'integer', minimum: 0 }, description: 'Seconds to wait before retrying (overloaded).' } },
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
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200 } },
        { name: 'cursor', in: 'query', schema: { type: 'string' }, description: 'nextCursor of the previous page.' },
        {
          name: 'fields',
          in: 'query',
          schema: { type: 'string' },
          description: `Comma-separated fields of each summary: ${SUMMARY_FIELDS.join(', ')} (default: all but metadata).`,
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
                  description: `A run summary: input, output and an error message cut to ${SUMMARY_TEXT_LIMIT} characters (named in truncated), pendingApproval without arguments, no context. GET /v1/runs/{id} has the whole run.`,
                  properties: { truncated: { type: 'array', items: { type: 'string' } } },
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
        { name: 'Last-Event-ID', in: 'header', schema: { type: 'integer', minimum: 0 }, description: 'Resume after this event (wins over ?after).' },
        { name: 'after', in: 'query', schema: { type: 'integer', minimum: 0 } },
        { name: 'format', in: 'query', schema: { type: 'string', enum: ['sse', 'json'] } },
      ],
      responses: {
        '200': {
          description: 'The events after the resume point, then live ones; with ?format=json, the log at once.',
          content: {
            ...sseContent,
            'application/json': { schema: { type: 'object', required: ['events'], properties: { events: { type: 'array', items: ref('RunEvent') } } } },
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
        '202': json(ref('Run'), 'The input was recorded; the run as it stands after it (a decision moves it back to `running`, without `pendingApproval`).'),
        '400': error('Invalid body.'),
        ...AUTH_ERRORS,
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
        '202': json(ref('Run'), 'The cancel request was recorded (`cancel_requested`); the run once its owner ended it (`cancelled`), or as it stands if that takes longer than two leases.'),
        ...AUTH_ERRORS,
        '404': error('No such run for this tenant.'),
        '409': error('The run has already finished.'),
      },
    },
  },
  '/v1/tools': {
    get: {
      summary: 'Tools this tenant may use',
      responses: {
        '200': json({ type: 'object', required: ['tools', 'servers'], properties: { tools: { type: 'array', items: ref('Tool') }, servers: { type: 'array', items: ref('ToolServer') } } }, 'The tools, and the state of every tool server.'),
        ...AUTH_ERRORS,
      },
    },
  },
  '/healthz': {
    get: { summary: 'Liveness', security: [], responses: { '200': json({ type: 'object', properties: { status: { const: 'ok' } } }, 'The process answers.') } },
  },
  '/readyz': {
    get: {
      summary: 'Readiness',
      security: [],
      responses: {
        '200': json({ type: 'object', properties: { status: { const: 'ready' }, servers: { type: 'array', items: ref('ToolServer') } } }, 'Ready to take runs (tool servers that are down are listed with the cause).'),
        '503': json({ type: 'object', properties: { status: { const: 'not_ready' }, reason: { type: 'string' }, servers: { type: 'array', items: ref('ToolServer') } } }, 'Not ready.'),
      },
    },
  },
  '/openapi.json': {
    get: { summary: 'This document', security: [], responses: { '200': json({ type: 'object' }, 'OpenAPI 3.1.') } },
  },
  '/metrics': {
    get: {
      summary: 'Prometheus metrics (toolgate_*), in the text exposition format; behind an API key when the server has keys. 404 when server.metricsPort serves them on a port of their own',
      responses: { '200': { description: 'text/plain; version=0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } }, '404': { description: 'served elsewhere, or not exported' } },
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
      description: 'Start runs, follow them over SSE, resume after a disconnect, answer approvals. Errors are always {"error": {"code", "message"}}.',
    },
    security: [{ bearer: [] }],
    paths: structuredClone(paths),
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key configured for a tenant.' } },
      schemas: structuredClone(schemas),
    },
  };
}
