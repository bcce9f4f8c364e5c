import { isRecord, newId, type EventDraft, type GatewaySessionSettings, type SessionToolSet } from '../core/index.ts';
import type { Server } from '@modelcontextprotocol/server';
import type { GatewayRun } from './gateway-run.ts';
import type { UpstreamExchanges } from './upstream-exchanges.ts';
import type { UpstreamTools } from './upstream-tools.ts';

/** Who a session acts for: resolved from its API key (HTTP) or from config (stdio). */
export interface GatewayIdentity {
  tenantId?: string | undefined;
  userId?: string | undefined;
  /** The caller's roles (Caller.roles): the tenant's role rules and approvers apply to the session. */
  roles?: readonly string[] | undefined;
  /** The API key's fingerprint (HTTP): a key's sessions count against its share. */
  keyId?: string | undefined;
  /** Writes are validated and recorded, not executed. */
  dryRun: boolean;
}

/** Whether `value` is a GatewayIdentity (as handed through the SDK's loosely typed auth info). */
export function isGatewayIdentity(value: unknown): value is GatewayIdentity {
  if (!isRecord(value) || typeof value['dryRun'] !== 'boolean') return false;
  const roles = value['roles'];
  if (roles !== undefined && !(Array.isArray(roles) && roles.every((role) => typeof role === 'string'))) return false;
  return ['tenantId', 'userId', 'keyId'].every((key) => value[key] === undefined || typeof value[key] === 'string');
}

/** One client session: its identity, its run (opened at its first request) and what it was told about changed tools. */
export class GatewaySession {
  readonly key: string;
  readonly identity: GatewayIdentity;
  /**
   * Completed by the first request that knows the client (a 2025-era session is admitted at initialize, before it
   * does).
   */
  settings: GatewaySessionSettings;
  /** Its place in the tenant's and key's shares (SessionShares). */
  readonly slotId = newId('slot');
  run: GatewayRun | undefined;
  opening: Promise<GatewayRun> | undefined;
  /** Fingerprints of changed tools already recorded in this session's run. */
  readonly toldChanged = new Set<string>();
  idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** Requests being served: a session is never idle while one is (a call may wait long for a person). */
  busy = 0;
  /**
   * The SDK server holding the client's connection, through which the gateway notifies the client and sends it
   * requests outside a request of its own: a stdio connection or a 2025-era HTTP session. Absent for 2026-07-28
   * clients, which are served per request (each request has a server of its own, gone when it is answered).
   */
  peer: Server | undefined;
  /**
   * The session's own upstream connections, declaring its client's sampling, elicitation and roots
   * (session-upstream.ts); undefined: it shares the gateway's. Decided once, when the peer is first known.
   */
  upstream: { set: SessionToolSet; listing: UpstreamTools } | undefined;
  upstreamDecided = false;
  /** A 2026-07-28 client's: the upstream's questions during its calls, asked through input_required. */
  exchanges: UpstreamExchanges | undefined;
  /** A 2026-07-28 client's request server that said what the client declared (it holds no connection). */
  requestServer: Server | undefined;
  /** Events to record once the run opens (an upstream request that came before it). */
  readonly pendingEvents: EventDraft[] = [];

  constructor(key: string, identity: GatewayIdentity, settings: GatewaySessionSettings) {
    this.key = key;
    this.identity = identity;
    this.settings = settings;
  }
}
