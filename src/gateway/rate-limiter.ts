import { ToolgateError, newId, type LimitStore } from '../core/index.ts';
import { compareSpecificity } from '../gate/index.ts';

/** `calls` per `perSeconds`, counted per tenant (or per tenant and tool). */
export interface RateLimit {
  calls: number;
  perSeconds: number;
}

export interface RateLimits {
  /** Every call of a tenant counts (the anonymous caller is one tenant). */
  tenant?: RateLimit | undefined;
  /**
   * Calls of a tool, per tenant: tool patterns as in `tools:` ("server/tool", "name", "server/*"); the most specific
   * pattern that matches applies.
   */
  tools?:
    | ReadonlyArray<{
        pattern: string;
        matches: (tool: { name: string; server: string; tool: string }) => boolean;
        limit: RateLimit;
      }>
    | undefined;
}

/**
 * Sliding-window counters, kept in the store (LimitStore slots that expire
 * after `perSeconds`), so every gateway instance sharing a store counts the
 * same calls: each limit allows `calls` within any `perSeconds` window. A
 * refused call does not count.
 */
export class RateLimiter {
  readonly #limits: RateLimits;
  readonly #store: LimitStore;

  constructor(limits: RateLimits, store: LimitStore) {
    // The most specific pattern first: `find` then picks it, whatever the order of the config.
    const tools =
      limits.tools === undefined
        ? undefined
        : [...limits.tools].sort((a, b) => compareSpecificity(b.pattern, a.pattern));
    this.#limits = { ...limits, ...(tools === undefined ? {} : { tools }) };
    this.#store = store;
    for (const limit of [limits.tenant, ...(limits.tools ?? []).map((t) => t.limit)]) {
      if (limit !== undefined && (!(limit.calls >= 1) || !(limit.perSeconds > 0))) {
        throw new ToolgateError(
          'config_invalid',
          'a rate limit needs calls ≥ 1 and perSeconds > 0, e.g. { calls: 60, perSeconds: 60 }',
        );
      }
    }
  }

  /**
   * Takes one call from every limit that applies, or says which one is
   * exhausted (then nothing is taken). Without a tool (a resource read) only
   * the tenant's limit applies.
   */
  async take(
    caller: { tenantId?: string | undefined },
    tool?: { name: string; server: string; tool: string },
  ): Promise<string | undefined> {
    const tenant = caller.tenantId ?? '(anonymous)';
    // Tenant ids hold no "/" (config-schema), so the keys cannot run into each other.
    const checks: { key: string; limit: RateLimit; what: string }[] = [];
    if (this.#limits.tenant !== undefined)
      checks.push({ key: `gateway-rate/tenant/${tenant}`, limit: this.#limits.tenant, what: `tenant "${tenant}"` });
    const rule = tool === undefined ? undefined : this.#limits.tools?.find((t) => t.matches(tool));
    if (rule !== undefined && tool !== undefined)
      checks.push({
        key: `gateway-rate/tool/${tenant}/${rule.pattern}`,
        limit: rule.limit,
        what: `${tool.name} (rule "${rule.pattern}") for tenant "${tenant}"`,
      });
    if (checks.length === 0) return undefined;
    const outcome = await this.#store.takeSlot({
      id: newId('call'),
      limits: checks.map((c) => ({ key: c.key, max: c.limit.calls, ttlMs: c.limit.perSeconds * 1000 })),
    });
    if (outcome.taken) return undefined;
    const check = checks.find((c) => c.key === outcome.key) ?? checks[0];
    if (check === undefined) return undefined;
    const retryIn = Math.max(1, Math.ceil(outcome.retryAfterMs / 1000));
    return (
      `rate limit: ${check.what} may make ${check.limit.calls} ` +
      `call${check.limit.calls === 1 ? '' : 's'} per ${check.limit.perSeconds} s; retry in ${retryIn} s`
    );
  }
}
