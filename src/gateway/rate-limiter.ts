import { ToolgateError } from '../core/index.ts';
import { compareSpecificity } from '../gate/index.ts';

/** `calls` per `perSeconds`, counted per tenant (or per tenant and tool). */
export interface RateLimit {
  calls: number;
  perSeconds: number;
}

export interface RateLimits {
  /** Every call of a tenant counts (the anonymous caller is one tenant). */
  tenant?: RateLimit | undefined;
  /** Calls of a tool, per tenant: tool patterns as in `tools:` ("server/tool", "name", "server/*"); the most specific pattern that matches applies. */
  tools?: ReadonlyArray<{ pattern: string; matches: (tool: { name: string; server: string; tool: string }) => boolean; limit: RateLimit }> | undefined;
}

/**
 * Sliding-window counters, kept in this process: each limit allows `calls`
 * within any `perSeconds` window. A refused call does not count.
 */
export class RateLimiter {
  readonly #limits: RateLimits;
  readonly #windows = new Map<string, number[]>();
  readonly #now: () => number;

  constructor(limits: RateLimits, now: () => number = Date.now) {
    // The most specific pattern first: `find` then picks it, whatever the order of the config.
    const tools = limits.tools === undefined ? undefined : [...limits.tools].sort((a, b) => compareSpecificity(b.pattern, a.pattern));
    this.#limits = { ...limits, ...(tools === undefined ? {} : { tools }) };
    this.#now = now;
    for (const limit of [limits.tenant, ...(limits.tools ?? []).map((t) => t.limit)]) {
      if (limit !== undefined && (!(limit.calls >= 1) || !(limit.perSeconds > 0))) {
        throw new ToolgateError('config_invalid', 'a rate limit needs calls ≥ 1 and perSeconds > 0, e.g. { calls: 60, perSeconds: 60 }');
      }
    }
  }

  /**
   * Takes one call from every limit that applies, or says which one is
   * exhausted (then nothing is taken). Without a tool (a resource read) only
   * the tenant's limit applies.
   */
  take(caller: { tenantId?: string | undefined }, tool?: { name: string; server: string; tool: string }): string | undefined {
    const tenant = caller.tenantId ?? '(anonymous)';
    const now = this.#now();
    const checks: { key: string; limit: RateLimit; what: string }[] = [];
    if (this.#limits.tenant !== undefined) checks.push({ key: `t:${tenant}`, limit: this.#limits.tenant, what: `tenant "${tenant}"` });
    const rule = tool === undefined ? undefined : this.#limits.tools?.find((t) => t.matches(tool));
    if (rule !== undefined && tool !== undefined) checks.push({ key: `p:${tenant}:${rule.pattern}`, limit: rule.limit, what: `${tool.name} (rule "${rule.pattern}") for tenant "${tenant}"` });
    for (const check of checks) {
      const window = this.#window(check.key, now, check.limit);
      if (window.length >= check.limit.calls) {
        const retryIn = Math.max(1, Math.ceil(((window[0] ?? now) + check.limit.perSeconds * 1000 - now) / 1000));
        return `rate limit: ${check.what} may make ${check.limit.calls} call${check.limit.calls === 1 ? '' : 's'} per ${check.limit.perSeconds} s; retry in ${retryIn} s`;
      }
    }
    for (const check of checks) this.#window(check.key, now, check.limit).push(now);
    return undefined;
  }

  #window(key: string, now: number, limit: RateLimit): number[] {
    const since = now - limit.perSeconds * 1000;
    const window = (this.#windows.get(key) ?? []).filter((t) => t > since);
    this.#windows.set(key, window);
    return window;
  }
}
