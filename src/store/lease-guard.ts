import { ToolgateError, type ClaimOptions, type RunLease } from '../core/index.ts';

/**
 * A run's lease as a store keeps it. Owner and expiry are set and cleared
 * together (no owner ⇔ no expiry); the epoch only grows, also across releases.
 */
export interface LeaseState {
  owner: string | undefined;
  epoch: number;
  /** Milliseconds since the Unix epoch (storeNow). */
  expiresAt: number | undefined;
}

/** Refuses claim options no caller should send: an empty owner or a ttl that is not a positive number of ms. */
export function checkClaimOptions(options: ClaimOptions): void {
  if (typeof options.owner !== 'string' || options.owner === '') {
    throw new ToolgateError('usage', 'a lease needs an owner: a non-empty id, unique per process');
  }
  checkTtl(options.ttlMs);
}

export function checkTtl(ttlMs: number): void {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new ToolgateError('usage', `a lease's ttlMs must be a positive number of milliseconds, got ${ttlMs}`);
  }
}

/** Whether `state` is a live lease of someone (expiry not yet passed: `expiresAt >= now`). */
export function isLive(state: LeaseState, now: number): boolean {
  return state.owner !== undefined && state.expiresAt !== undefined && state.expiresAt >= now;
}

/** Whether `lease` is the one `state` holds (same owner and epoch), expired or not. */
export function isHeldBy(state: LeaseState, lease: RunLease): boolean {
  return state.owner !== undefined && state.owner === lease.owner && state.epoch === lease.epoch;
}

/**
 * The fencing check of an append that carries a lease, made inside the same
 * atomic step as the write: the lease must be the run's current one (owner and
 * epoch) and unexpired. Otherwise the writer lost the run and must stop.
 */
export function checkLease(state: LeaseState, append: { runId: string; lease: RunLease; now: number }): void {
  const { runId, lease, now } = append;
  if (lease.runId !== runId) {
    throw new ToolgateError('usage', `the lease of run ${lease.runId} was passed to an append to run ${runId}`);
  }
  if (isHeldBy(state, lease) && isLive(state, now)) return;
  const why = isHeldBy(state, lease)
    ? 'the lease expired'
    : `the run is now ${state.owner === undefined ? 'released' : `held by "${state.owner}"`} at epoch ${state.epoch}`;
  throw new ToolgateError(
    'lease_lost',
    `run ${runId}: owner "${lease.owner}" no longer holds the lease of epoch ${lease.epoch} (${why}): ` +
      `another process took the run over or the lease expired; nothing was appended, stop driving this run`,
    { details: { runId, owner: lease.owner, epoch: lease.epoch, currentEpoch: state.epoch } },
  );
}

/** Optimistic concurrency of an append: refused with `conflict` unless the run's last event is still `expected`. */
export function checkLastEventId(runId: string, lastEventId: number, expected: number | undefined): void {
  if (expected === undefined || expected === lastEventId) return;
  throw new ToolgateError(
    'conflict',
    `run ${runId} changed since it was read: its last event is ` +
      `${lastEventId}, not ${expected}; read the run again and retry`,
    { details: { runId, lastEventId, expectLastEventId: expected } },
  );
}
