import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ToolgateError } from '../core/errors.ts';
import type { RunInput } from '../core/events.ts';
import type { ForkRunRequest, StartRunRequest } from '../core/ports/run-service.ts';
import { canonicalJson } from '../core/canonical-json.ts';
import { withoutUndefined } from '../core/without-undefined.ts';

/** Request bodies of the runs API. Unknown fields are refused: a typo must not be ignored silently. */
const jsonObject = z.record(z.string(), z.json());

export const MAX_STEPS_LIMIT = 1000;

export const startRunBodySchema = z.strictObject({
  input: z.string().min(1, 'must be a non-empty string'),
  threadId: z.string().min(1).max(255).optional(),
  model: z.string().min(1).optional(),
  strategy: z.string().min(1).optional(),
  dryRun: z.boolean().optional(),
  context: jsonObject.optional(),
  metadata: jsonObject.optional(),
  maxSteps: z.number().int().min(1).max(MAX_STEPS_LIMIT).optional(),
  todo: z.boolean().optional(),
});

const approvalInputSchema = z
  .strictObject({
    type: z.literal('approval'),
    toolCallId: z.string().min(1),
    decision: z.enum(['approve', 'reject', 'edit', 'mark_done']),
    arguments: jsonObject.optional(),
    reason: z.string().optional(),
    result: z.json().optional(),
  })
  .refine((value) => value.decision !== 'edit' || value.arguments !== undefined, {
    message: 'required when decision is "edit" (the edited arguments to call the tool with)',
    path: ['arguments'],
  })
  .refine((value) => value.decision === 'mark_done' || value.result === undefined, {
    message: 'only with decision "mark_done" (what a person saw of a call that did happen)',
    path: ['result'],
  });

const messageInputSchema = z.strictObject({
  type: z.literal('message'),
  text: z.string().min(1, 'must be a non-empty string'),
});

export const runInputBodySchema = z.discriminatedUnion('type', [approvalInputSchema, messageInputSchema], {
  error: 'must be "approval" (with toolCallId and decision) or "message" (with text)',
});

/** Validates a POST /v1/runs body into the service's request (absent fields stay absent). */
export function parseStartRunBody(body: unknown): StartRunRequest {
  const { input, ...optional } = parseBody(startRunBodySchema, body, '{"input": "…"}');
  return { input, ...withoutUndefined(optional) };
}

/** POST /v1/runs/{id}/fork: where to fork, and what to change of the original's settings. */
export const forkRunBodySchema = z.strictObject({
  afterEventId: z.number().int().min(1),
  settings: z
    .strictObject({
      strategy: z.string().min(1).optional(),
      maxSteps: z.number().int().min(1).max(MAX_STEPS_LIMIT).optional(),
      toolMode: z.enum(['native', 'prompted', 'auto']).optional(),
      model: z.string().min(1).optional(),
      dryRun: z.boolean().optional(),
      todo: z.boolean().optional(),
    })
    .optional(),
});

/** Validates a POST /v1/runs/{id}/fork body into the service's request (absent fields stay absent). */
export function parseForkRunBody(body: unknown): ForkRunRequest {
  const { afterEventId, settings } = parseBody(forkRunBodySchema, body, '{"afterEventId": 7}');
  return settings === undefined ? { afterEventId } : { afterEventId, settings: withoutUndefined(settings) };
}

/** A cancel's optional body: `{reason}`, recorded with the cancellation. */
export const cancelBodySchema = z.strictObject({ reason: z.string().min(1).max(500).optional() });

/** Validates a POST /v1/runs/{id}/cancel body (none at all is fine): the reason, if any. */
export function parseCancelBody(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  return parseBody(cancelBodySchema, body, '{"reason": "…"}').reason;
}

export function parseRunInputBody(body: unknown): RunInput {
  const data = parseBody(runInputBodySchema, body, '{"type": "message", "text": "…"}');
  if (data.type === 'message') return { type: 'message', text: data.text };
  const input: RunInput = { type: 'approval', toolCallId: data.toolCallId, decision: data.decision };
  if (data.arguments !== undefined) input.arguments = data.arguments;
  if (data.reason !== undefined) input.reason = data.reason;
  if (data.result !== undefined) input.result = data.result;
  return input;
}

function parseBody<T>(schema: z.ZodType<T>, body: unknown, example: string): T {
  if (body === undefined) {
    throw new ToolgateError(
      'usage',
      `request body is required: send a JSON object such as ${example} with "Content-Type: application/json"`,
    );
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw new ToolgateError('usage', `invalid request body: ${formatIssues(result.error.issues, body)}`, {
    details: { issues: result.error.issues },
  });
}

/** "input: must be a non-empty string; unknown field "foo"" — every message names its field. */
export function formatIssues(issues: readonly z.core.$ZodIssue[], input: unknown): string {
  return issues
    .slice(0, 10)
    .map((issue) => {
      const field = issue.path.map(String).join('.');
      if (issue.code === 'unrecognized_keys') {
        const where = field === '' ? '' : ` in ${field}`;
        return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}${where}`;
      }
      if (issue.code === 'invalid_type' && field !== '' && valueAt(input, issue.path) === undefined)
        return `${field} is required`;
      if (field === '') return issue.code === 'invalid_type' ? 'the body must be a JSON object' : issue.message;
      return `${field}: ${issue.message}`;
    })
    .join('; ');
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = Reflect.get(value, key);
  }
  return value;
}

/** The Idempotency-Key request hash: sha256 (hex) of the validated body's canonical JSON. */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex');
}
