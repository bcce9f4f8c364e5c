import type { IdempotencyRequest } from '../../core/index.ts';
import { DEFAULT_IDEMPOTENCY_TTL_MS, idempotencyMismatch } from '../store-defaults.ts';

interface KeyEntry {
  runId: string;
  requestHash: string;
  expiresAt: number;
}

/** MemoryRunStore's Idempotency-Keys: each tenant has its own, each kept until it expires. */
export class MemoryIdempotencyKeys {
  /** Keyed by scopedKey, in insertion order. */
  readonly #keys = new Map<string, KeyEntry>();

  /** The run a live key was used for; a live key used with another request body is refused (idempotency_mismatch). */
  runOf(tenantId: string | undefined, request: IdempotencyRequest, now: number): string | undefined {
    const existing = this.#keys.get(scopedKey(tenantId, request.key));
    if (existing === undefined || existing.expiresAt <= now) return undefined;
    if (existing.requestHash !== request.requestHash) throw idempotencyMismatch(request.key);
    return existing.runId;
  }

  remember(tenantId: string | undefined, request: IdempotencyRequest, use: { runId: string; now: number }): void {
    this.#pruneExpired(use.now);
    const scoped = scopedKey(tenantId, request.key);
    // Deleted first: a key used again goes to the end, with the others that expire last.
    this.#keys.delete(scoped);
    this.#keys.set(scoped, {
      runId: use.runId,
      requestHash: request.requestHash,
      expiresAt: use.now + (request.ttlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS),
    });
  }

  /** Forgets every key used for this run (deleteRuns). */
  forgetRun(runId: string): void {
    for (const [scoped, entry] of this.#keys) if (entry.runId === runId) this.#keys.delete(scoped);
  }

  /** Keys sit in insertion order, so expired ones cluster at the front (for a common ttl). */
  #pruneExpired(now: number): void {
    for (const [scoped, entry] of this.#keys) {
      if (entry.expiresAt > now) return;
      this.#keys.delete(scoped);
    }
  }
}

/** '' stands for "no tenant"; NUL keeps tenant and key from running into each other. */
function scopedKey(tenantId: string | undefined, key: string): string {
  return `${tenantId ?? ''}\u0000${key}`;
}
