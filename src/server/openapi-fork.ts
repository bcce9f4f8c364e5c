import { STRATEGY_NAMES } from '../core/runs.ts';
import { AUTH_ERRORS, BROWSER_ERRORS, error, json, ref, type Schema } from './openapi-helpers.ts';
import { MAX_STEPS_LIMIT } from './schemas.ts';

/** The body of POST /v1/runs/{id}/fork (forkRunBodySchema). */
export const forkRunRequestSchema: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['afterEventId'],
  properties: {
    afterEventId: {
      type: 'integer',
      minimum: 1,
      description:
        'The last event of the original the fork copies: from its first user_message to the event before its end.',
    },
    settings: {
      type: 'object',
      additionalProperties: false,
      description: "What the fork changes of the original's stored settings; absent fields keep the original's.",
      properties: {
        strategy: { type: 'string', description: `One of: ${STRATEGY_NAMES.join(', ')}; another is refused with 400.` },
        maxSteps: { type: 'integer', minimum: 1, maximum: MAX_STEPS_LIMIT },
        toolMode: { type: 'string', enum: ['native', 'prompted', 'auto'] },
        model: { type: 'string', description: '"provider:model", one the caller may choose (as for POST /v1/runs).' },
        dryRun: { type: 'boolean' },
        todo: { type: 'boolean' },
      },
    },
  },
};

/** Forking a run: a new run from a prefix of another's log. */
export const forkPaths: Record<string, Record<string, Schema>> = {
  '/v1/runs/{id}/fork': {
    post: {
      summary: 'Fork a run after one of its events',
      description:
        "A new run with the original's input, tenant, user and context (no thread), `metadata.forkOf: {runId, " +
        'afterEventId}`, and a log that starts with copies of the original’s conversation up to `afterEventId` ' +
        '(decided approvals stay decided; one pending at that point is asked again; a write in flight there is an ' +
        'unknown outcome a person decides), then `run_forked`. It is driven live from there under the ' +
        'original’s settings with `settings` over them. The original is never changed.',
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'The run to fork.' },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: forkRunRequestSchema } } },
      responses: {
        '201': {
          ...json(ref('Run'), 'The fork was created (queued); Location names it.'),
          headers: { Location: { schema: { type: 'string' }, description: '/v1/runs/{the fork’s id}' } },
        },
        '400': error(
          'Invalid body; afterEventId outside the run’s conversation (the message names the valid range, and ' +
            'the last id for one past the log); an unknown strategy; a gateway session’s run; or a model the ' +
            'caller may not use (model_not_allowed).',
        ),
        ...AUTH_ERRORS,
        ...BROWSER_ERRORS,
        '404': error('No such run for this tenant.'),
        '409': error('The run has not started yet (no user message in its log).'),
        '429': error('`overloaded`: the queue is full; no run was created.'),
        '503': error('Shutting down.'),
      },
    },
  },
};
