import { AUTH_ERRORS, error, json, type Schema } from './openapi-helpers.ts';
import { MAX_STATS_FILTER_LENGTH } from './routes/stats.ts';

const count: Schema = { type: 'integer', minimum: 0 };
const counts: Schema = { type: 'object', additionalProperties: count };
const numbers: Schema = { type: 'array', items: { type: 'number' } };

const latency: Schema = {
  type: 'object',
  required: ['count'],
  description: 'Milliseconds; percentiles within 2% of the exact ones (log buckets). Absent when count is 0.',
  properties: { count, p50: { type: 'number' }, p95: { type: 'number' }, max: { type: 'number' } },
};

const figures: Schema = {
  type: 'object',
  required: ['runs', 'failures', 'guardTrips', 'approvals', 'steps', 'tokens', 'costUsd', 'series'],
  properties: {
    runs: {
      type: 'object',
      description: 'Runs that started, and that ended completed, failed or cancelled, in the window.',
      properties: { started: count, completed: count, failed: count, cancelled: count },
    },
    completionRate: { type: 'number', description: 'completed / ended; absent when none ended.' },
    failures: { ...counts, description: 'Failed runs by error code.' },
    guardTrips: { ...counts, description: 'Guard trips by code.' },
    approvals: { type: 'object', properties: { asked: count, rejected: count } },
    steps: { ...count, description: 'Model calls, side calls included.' },
    tokens: { type: 'object', properties: { input: count, output: count } },
    costUsd: { type: 'number', description: 'At the configured prices (runs without one count 0).' },
    modelLatencyMs: latency,
    toolLatencyMs: latency,
    series: {
      type: 'object',
      description: 'Per bucket of the window, oldest first: runs completed and failed, tool-call p95 (ms, 0: none).',
      properties: { completed: numbers, failed: numbers, toolP95Ms: numbers },
    },
  },
};

const arm: Schema = {
  type: 'object',
  required: ['ended', 'failed', 'toolLatencyMs'],
  properties: {
    ended: count,
    failed: count,
    failureRate: { type: 'number' },
    completionRate: { type: 'number' },
    avgCostUsd: { type: 'number' },
    toolLatencyMs: latency,
  },
};

const snapshot: Schema = {
  type: 'object',
  required: ['windowMs', 'bucketMs', 'since', 'until', 'rows', 'totals', 'rollouts'],
  properties: {
    windowMs: count,
    bucketMs: count,
    since: { type: 'string', format: 'date-time' },
    until: { type: 'string', format: 'date-time' },
    rows: {
      type: 'array',
      description:
        'One per tenant × intent × strategy × model, sorted. tenant `-`: runs without one; intent `-`: runs not ' +
        'routed by auto; strategy: the route an auto run took (`auto` before), `gateway` for gateway sessions.',
      items: {
        allOf: [
          {
            type: 'object',
            required: ['tenant', 'intent', 'strategy', 'model'],
            properties: {
              tenant: { type: 'string' },
              intent: { type: 'string' },
              strategy: { type: 'string' },
              model: { type: 'string' },
            },
          },
          figures,
        ],
      },
    },
    totals: { ...figures, description: 'The sum of the rows.' },
    rollouts: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'treated', 'control'],
        properties: {
          name: { type: 'string', description: 'The setting the rollout changes, e.g. router.live.' },
          treated: arm,
          control: arm,
          rolledBack: {
            type: 'object',
            properties: {
              at: { type: 'string', format: 'date-time' },
              failureRate: { type: 'number' },
              threshold: { type: 'number' },
            },
          },
        },
      },
    },
  },
};

const filter = (name: string, description: string): Schema => ({
  name,
  in: 'query',
  schema: { type: 'string', minLength: 1, maxLength: MAX_STATS_FILTER_LENGTH },
  description,
});

/** GET /v1/stats: live outcome statistics (docs/observability.md, "Live statistics"). */
export const statsPaths: Record<string, Record<string, Schema>> = {
  '/v1/stats': {
    get: {
      summary: 'Live outcome statistics over a sliding window',
      description:
        'Per tenant × intent × strategy × model, over `stats.windowMinutes` (60 buckets): completion rate, ' +
        'failures by code, guard trips, approvals, steps, tokens, cost, model and tool latency percentiles, and ' +
        'the rollouts’ treated and control shares. A caller bound to a tenant sees that tenant only.',
      parameters: [
        filter('tenant', 'Only this tenant’s rows (a tenant’s caller may name only its own).'),
        filter('intent', 'Only this intent (answer, lookup, change; `-` for runs not routed by auto).'),
        filter('strategy', 'Only this strategy (react, plan, reflect, answer, auto, gateway).'),
        filter('model', 'Only this model ("provider:model").'),
      ],
      responses: {
        '200': json(snapshot, 'The window’s figures.'),
        '400': error('An unknown or repeated parameter, or an empty or too long value.'),
        ...AUTH_ERRORS,
        '403': error('`forbidden`: tenant= names another tenant than the caller’s.'),
        '404': error('This server keeps no live statistics.'),
      },
    },
  },
};
