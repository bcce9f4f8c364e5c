import { ToolgateError, describeError, type LimitStore } from '../core/index.ts';
import type { GatewayIdentity } from './gateway-session.ts';

/** A tenant may hold at least this fraction of gateway.maxSessions by default (1/4), however many tenants there are. */
const MIN_SHARE_DIVISOR = 4;

/**
 * Default `gateway.maxSessionsPerTenant`: the process's sessions divided among
 * the tenants that have keys — all of them for one tenant, half each for two,
 * and never less than a quarter — so no tenant can take every session.
 */
export function defaultMaxSessionsPerTenant(maxSessions: number, tenants: number): number {
  return Math.max(1, Math.ceil(maxSessions / Math.min(MIN_SHARE_DIVISOR, Math.max(1, tenants))));
}

/**
 * Default `gateway.maxSessionsPerKey`: half the tenant's share when the tenant has several keys, all of it when it has
 * one.
 */
export function defaultMaxSessionsPerKey(perTenant: number, keysOfTenant: number): number {
  return keysOfTenant > 1 ? Math.max(1, Math.ceil(perTenant / 2)) : perTenant;
}

export interface SessionSharesOptions {
  limits: LimitStore;
  /** Renews this process's slots (the gateway's lease owner id). */
  holder: string;
  /** A slot lives this long unless renewed: the sessions of a gateway that died free their places after it. */
  ttlMs: number;
  /** Open sessions one tenant may hold across every instance on the store (`gateway.maxSessionsPerTenant`). */
  perTenant: number;
  /**
   * Open sessions one API key may hold (`gateway.maxSessionsPerKey`); by tenant, since the default depends on its keys.
   */
  perKey: (tenantId: string | undefined) => number;
  onError?: ((message: string) => void) | undefined;
}

/**
 * Each tenant's and each key's share of the gateway's sessions, counted in
 * the store (LimitStore slots) so it holds across instances sharing one. A
 * slot is held while its session is open; this process renews its slots
 * every third of their ttl.
 */
export class SessionShares {
  readonly #options: SessionSharesOptions;
  #held = 0;
  #renewer: ReturnType<typeof setInterval> | undefined;

  constructor(options: SessionSharesOptions) {
    this.#options = options;
  }

  /**
   * Takes a place for session slot `id`, or throws `overloaded` naming the share that is full and how to get a place.
   */
  async admit(id: string, identity: GatewayIdentity): Promise<void> {
    const { limits, holder, ttlMs, perTenant } = this.#options;
    const tenant = identity.tenantId ?? '';
    const tenantKey = `gateway-session/tenant/${tenant}`;
    const perKey = this.#options.perKey(identity.tenantId);
    const outcome = await limits.takeSlot({
      id,
      holder,
      limits: [
        { key: tenantKey, max: perTenant, ttlMs },
        ...(identity.keyId === undefined ? [] : [{ key: `gateway-session/key/${identity.keyId}`, max: perKey, ttlMs }]),
      ],
    });
    if (!outcome.taken) {
      const howToFree =
        'end unused sessions (DELETE /mcp, or close the client) ' +
        'or retry when idle ones have ended (gateway.sessionIdleMs)';
      const who = `tenant "${identity.tenantId ?? '(anonymous)'}"`;
      const sessions = `${outcome.live} open gateway session${outcome.live === 1 ? '' : 's'}`;
      throw new ToolgateError(
        'overloaded',
        outcome.key === tenantKey
          ? `${who} has ${sessions}, its share (gateway.maxSessionsPerTenant ` +
              `${perTenant}): ${howToFree}; an operator may raise gateway.maxSessionsPerTenant`
          : `this API key has ${sessions}, its share (gateway.maxSessionsPerKey ${perKey}; other keys of ` +
              `${who} may still open sessions): ${howToFree}; an operator may raise gateway.maxSessionsPerKey`,
        {
          details: {
            limit: outcome.key === tenantKey ? 'gateway.maxSessionsPerTenant' : 'gateway.maxSessionsPerKey',
            max: outcome.key === tenantKey ? perTenant : perKey,
          },
        },
      );
    }
    this.#held += 1;
    this.#renewer ??= this.#startRenewing();
  }

  /** Frees the place of slot `id` (its session ended). */
  async release(id: string): Promise<void> {
    this.#held = Math.max(0, this.#held - 1);
    if (this.#held === 0) this.stop();
    await this.#options.limits.releaseSlot(id);
  }

  stop(): void {
    clearInterval(this.#renewer);
    this.#renewer = undefined;
  }

  #startRenewing(): ReturnType<typeof setInterval> {
    const { limits, holder, ttlMs, onError } = this.#options;
    const timer = setInterval(
      () => {
        void limits
          .renewSlots({ holder, ttlMs })
          .catch((error: unknown) =>
            onError?.(`gateway session shares could not be renewed in the store: ${describeError(error)}`),
          );
      },
      Math.max(50, Math.floor(ttlMs / 3)),
    );
    timer.unref();
    return timer;
  }
}
