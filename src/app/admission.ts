import { ToolgateError } from '../core/index.ts';
import type { Toolgate } from './toolgate.ts';

/**
 * A model the caller's tenant may not choose → `model_not_allowed`, naming the allowed ones. Checked before anything
 * reads the model id: a client never learns what lies behind one it may not use.
 */
export function checkModelAllowed(
  toolgate: Pick<Toolgate, 'modelAccess'>,
  model: string,
  tenantId: string | undefined,
): void {
  const access = toolgate.modelAccess(model, tenantId);
  if (access.allowed) return;
  const named = model.length > 80 ? `${model.slice(0, 80)}…` : model;
  throw new ToolgateError(
    'model_not_allowed',
    `model ${JSON.stringify(named)} is not allowed here; ` +
      (access.choices.length === 0
        ? 'no model is configured (the operator sets `model:` and `models:` in toolgate.yaml)'
        : `allowed: ${access.choices.join(', ')}`),
  );
}

/** The `overloaded` refusal of a new run: which limit is full, and when to retry. */
export function overloadedError(queue: {
  waiting: number;
  ofTenant: number;
  tenantId: string | undefined;
  queueLimit: number;
  queueLimitPerTenant: number;
  concurrency: number;
}): ToolgateError {
  const { waiting, ofTenant, queueLimit, queueLimitPerTenant, concurrency } = queue;
  // A rough wait: the queue drains at about one slot per run length; a few seconds is an honest first guess.
  const retryAfterSeconds = Math.min(60, Math.max(1, Math.ceil(waiting / Math.max(1, concurrency))));
  const retry = `retry after ${retryAfterSeconds} s or on another instance`;
  const all = waiting >= queueLimit;
  return new ToolgateError(
    'overloaded',
    all
      ? `this server has ${waiting} runs waiting for a slot (server.queueLimit ` +
          `${queueLimit}, ${concurrency} at a time); ${retry}`
      : `tenant "${queue.tenantId ?? '(anonymous)'}" has ${ofTenant} runs waiting for a slot, its share of ` +
          `the queue (server.queueLimitPerTenant ${queueLimitPerTenant}; other tenants still get in); ${retry}`,
    { details: { retryAfterSeconds, limit: all ? 'server.queueLimit' : 'server.queueLimitPerTenant' } },
  );
}
