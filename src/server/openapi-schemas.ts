import { ERROR_CODES } from '../core/errors.ts';
import { RUN_EVENT_TYPES } from '../core/events.ts';
import { RUN_STATUSES, STRATEGY_NAMES } from '../core/runs.ts';
import { jsonObject, ref, type Schema } from './openapi-helpers.ts';
import { MAX_STEPS_LIMIT } from './schemas.ts';

/** The component schemas of the OpenAPI document. */
export const schemas: Record<string, Schema> = {
  ErrorInfo: {
    type: 'object',
    required: ['code', 'message'],
    properties: { code: { type: 'string', enum: [...ERROR_CODES] }, message: { type: 'string' } },
  },
  Error: { type: 'object', required: ['error'], properties: { error: ref('ErrorInfo') } },
  Usage: {
    type: 'object',
    required: ['promptTokens', 'completionTokens', 'totalTokens'],
    properties: {
      promptTokens: { type: 'integer' },
      completionTokens: { type: 'integer' },
      totalTokens: { type: 'integer' },
      cacheReadTokens: { type: 'integer' },
      cacheWriteTokens: { type: 'integer' },
      // Set when toolgate counted tokens the model API did not report (docs/events.md).
      estimated: { type: 'boolean', enum: [true] },
      estimatedOnly: { type: 'string', enum: ['promptTokens', 'completionTokens'] },
    },
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
      lastEventId: {
        type: 'integer',
        description: 'Id of the last event appended; resume the event stream from here.',
      },
      metadata: jsonObject,
      context: jsonObject,
      dryRun: { type: 'boolean' },
      settings: ref('RunSettings'),
      pendingApproval: ref('PendingApproval'),
    },
  },
  RunSettings: {
    type: 'object',
    description:
      'How the run is driven: fixed when it is created, stored with it, used by whichever process drives it.',
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
      strategy: {
        type: 'string',
        description:
          `One of: ${STRATEGY_NAMES.join(', ')} (default: the configured ` +
          `strategy, then react); another name is refused with 400.`,
      },
      todo: {
        type: 'boolean',
        description: 'Offer the built-in todo tools (todo_write, todo_read); default: config todo.enabled.',
      },
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
            description:
              '"mark_done" only for a call whose outcome is unknown: ' +
              'it did happen; it is recorded, not executed again.',
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
    required: [
      'name',
      'description',
      'inputSchema',
      'annotations',
      'origin',
      'effect',
      'approval',
      'injected',
      'untrusted',
      'available',
    ],
    properties: {
      name: { type: 'string' },
      description: { type: 'string' },
      inputSchema: jsonObject,
      annotations: jsonObject,
      origin: {
        type: 'object',
        required: ['kind', 'server', 'tool'],
        properties: {
          kind: { type: 'string', enum: ['mcp', 'local', 'builtin'] },
          server: { type: 'string' },
          tool: { type: 'string' },
        },
      },
      effect: { type: 'string', enum: ['read', 'write'] },
      approval: {
        type: 'string',
        enum: ['required', 'auto', 'never'],
        description: 'The resolved approval mode: whether a call waits for a person.',
      },
      injected: {
        type: 'array',
        items: { type: 'string' },
        description: 'Argument names the server fills in (`inject` in the tool rules); the model never sees them.',
      },
      untrusted: {
        type: 'boolean',
        description: 'Its output is treated as untrusted (config `untrusted`, or an explicit openWorldHint).',
      },
      available: {
        type: 'boolean',
        description:
          'false while its server is down (the last known listing); runs do not get it until the server is back.',
      },
    },
  },
};
