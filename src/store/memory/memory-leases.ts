import {
  ACTIVE_RUN_STATUSES,
  TERMINAL_RUN_STATUSES,
  type ClaimOptions,
  type Run,
  type RunEventType,
  type RunLease,
  type RunStatus,
} from '../../core/index.ts';
import { isHeldBy, isLive, type LeaseState } from '../lease-guard.ts';

// The lease rules of MemoryRunStore. Each is synchronous: the store calls it
// with no await between check and write, so nobody claims in between.

/** What the store keeps of a run that the lease rules need. */
export interface LeasedRun {
  run: Run;
  /** The terminal event in the run's log, once there is one. */
  endedBy?: RunEventType;
  /** Who drives the run; kept beside the Run, never shown on it. */
  lease: LeaseState;
}

/** The statuses claimNext picks up: runs that need an owner to make progress. */
const CLAIMABLE: ReadonlySet<RunStatus> = ACTIVE_RUN_STATUSES;

export function hasEnded(entry: LeasedRun): boolean {
  return TERMINAL_RUN_STATUSES.has(entry.run.status) || entry.endedBy !== undefined;
}

/** claimNext: claims up to `limit` queued or running runs without a live lease, in the order given (oldest first). */
export function claimOldest(
  entries: Iterable<LeasedRun>,
  options: ClaimOptions & { limit: number },
  now: number,
): RunLease[] {
  const limit = Math.floor(options.limit);
  const leases: RunLease[] = [];
  for (const entry of entries) {
    if (!(leases.length < limit)) break;
    if (!CLAIMABLE.has(entry.run.status) || hasEnded(entry) || isLive(entry.lease, now)) continue;
    const lease = claimLease(entry.lease, { ...options, runId: entry.run.id, now });
    if (lease !== undefined) leases.push(lease);
  }
  return leases;
}

/** Claims for `options.owner` when the lease is free, expired or already theirs; the epoch grows by one. */
export function claimLease(
  state: LeaseState,
  claim: ClaimOptions & { runId: string; now: number },
): RunLease | undefined {
  const { owner, now } = claim;
  if (isLive(state, now) && state.owner !== owner) return undefined;
  state.owner = owner;
  state.epoch += 1;
  state.expiresAt = now + claim.ttlMs;
  return { runId: claim.runId, owner, epoch: state.epoch, expiresAt: state.expiresAt };
}

/** Extends the lease if `lease` still holds it (owner and epoch), even just after expiry. */
export function renewLease(
  state: LeaseState,
  renewal: { lease: RunLease; ttlMs: number; now: number },
): RunLease | undefined {
  const { lease } = renewal;
  if (!isHeldBy(state, lease)) return undefined;
  state.expiresAt = renewal.now + renewal.ttlMs;
  return { ...lease, expiresAt: state.expiresAt };
}

/** Frees the lease if `lease` still holds it; the epoch stays (it only grows). */
export function releaseLease(state: LeaseState, lease: RunLease): void {
  if (!isHeldBy(state, lease)) return;
  state.owner = undefined;
  state.expiresAt = undefined;
}
