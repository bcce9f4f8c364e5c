import { ToolgateError, type TakeSlotRequest } from '../core/index.ts';

/** Strike keys a store keeps at most; past it the ones whose last strike is oldest go first. */
export const MAX_STRIKE_KEYS = 100_000;
/** How often a store removes expired slots and forgotten strikes of keys nobody touches again. */
export const LIMITS_SWEEP_EVERY_MS = 60_000;

/** Refuses a slot request no caller should send, before anything is written; returns its limits with each key once. */
export function checkSlotRequest(request: TakeSlotRequest): TakeSlotRequest['limits'] {
  if (typeof request.id !== 'string' || request.id === '')
    throw new ToolgateError('usage', 'a slot needs an id: a non-empty string, unique per use');
  if (request.holder !== undefined && request.holder === '')
    throw new ToolgateError('usage', "a slot's holder must be a non-empty string when given");
  for (const limit of request.limits) {
    if (typeof limit.key !== 'string' || limit.key === '')
      throw new ToolgateError('usage', 'a slot limit needs a key: a non-empty string');
    if (!Number.isInteger(limit.max) || limit.max < 0)
      throw new ToolgateError('usage', `the limit of "${limit.key}" must be a whole number ≥ 0, got ${limit.max}`);
    checkLimitTtl(limit.ttlMs, `the ttlMs of "${limit.key}"`);
  }
  return distinctLimits(request);
}

export function checkLimitTtl(ms: number, what: string): void {
  if (!Number.isFinite(ms) || ms <= 0)
    throw new ToolgateError('usage', `${what} must be a positive number of milliseconds, got ${ms}`);
}

/** The limits of a request with each key once (the first mention wins), in the request's order. */
function distinctLimits(request: TakeSlotRequest): TakeSlotRequest['limits'] {
  const byKey = new Map<string, TakeSlotRequest['limits'][number]>();
  for (const limit of request.limits) if (!byKey.has(limit.key)) byKey.set(limit.key, limit);
  return [...byKey.values()];
}
