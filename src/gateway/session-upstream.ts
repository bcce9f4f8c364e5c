import type { Server } from '@modelcontextprotocol/server';
import {
  draft,
  isJsonObject,
  type EventDraft,
  type JsonObject,
  type OfferedClientCapabilities,
  type SessionToolSet,
  type SessionToolsFactory,
  type UpstreamNotification,
  type UpstreamRequest,
} from '../core/index.ts';
import { IdleSessionTools } from './idle-session-tools.ts';
import { answerUpstreamRequest, upstreamSummary, type SamplingDecision } from './upstream-requests.ts';
import { UpstreamTools, type UpstreamToolsOptions } from './upstream-tools.ts';

/** A session's own upstream connections: its tools and their listing (with the gateway's pin check). */
export interface SessionUpstream {
  set: SessionToolSet;
  listing: UpstreamTools;
}

/** What a session's own upstream connections tell it, and what keeps them open (own-notifications.ts). */
export interface SessionUpstreamHooks {
  /** A log message of one of the session's servers (notifications/message). */
  onLog: (server: string, params: JsonObject) => void;
  /** Their list changes and resource updates. */
  onNotification?: ((notification: UpstreamNotification) => void) | undefined;
  /** Whether they must stay open although unused (the session subscribed to resources on them). */
  keepOpen?: (() => boolean) | undefined;
}

export interface SessionUpstreamOptions {
  factory: SessionToolsFactory;
  peer: Server;
  /** `gateway.sampling` for one server. */
  sampling: (server: string) => SamplingDecision;
  roots: readonly string[] | undefined;
  timeoutMs: number;
  /** The gateway's pin check and relist period, applied to the session's listing too. */
  upstream: Pick<UpstreamToolsOptions, 'checkPins' | 'relistMs'>;
  /** Answers the servers' requests instead of the peer (which then only says what the client declared). */
  ask?: ((request: UpstreamRequest) => Promise<JsonObject>) | undefined;
  /** Records events in the session's run (or keeps them for when it opens). */
  record: (drafts: EventDraft[]) => void;
  hooks: SessionUpstreamHooks;
  /** `gateway.sessionUpstreamIdleMs`: unused this long, the connections close (opened again when next needed). */
  idleMs: number;
}

/**
 * What of sampling, elicitation and roots the client declared, as toolgate can offer it upstream; undefined when
 * it declared none of them (the session then shares the gateway's connections).
 */
export function offeredCapabilities(peer: Server): OfferedClientCapabilities | undefined {
  const caps = peer.getClientCapabilities();
  if (caps === undefined) return undefined;
  const { sampling, elicitation, roots } = caps;
  const offered: OfferedClientCapabilities = {
    ...(isJsonObject(sampling) ? { sampling: pick(sampling, ['context', 'tools']) } : {}),
    ...(isJsonObject(elicitation) ? { elicitation: elicitationModes(elicitation) } : {}),
    ...(isJsonObject(roots) ? { roots: roots['listChanged'] === true ? { listChanged: true } : {} } : {}),
  };
  return Object.keys(offered).length === 0 ? undefined : offered;
}

/**
 * Opens the session's own upstream connections (lazily: the servers start at its first listing), closed after
 * `idleMs` unused and opened again by the next request that needs them.
 */
export function openSessionUpstream(options: SessionUpstreamOptions): SessionUpstream | undefined {
  const capabilities = offeredCapabilities(options.peer);
  if (capabilities === undefined) return undefined;
  const { hooks } = options;
  const set = new IdleSessionTools({
    open: () =>
      options.factory({
        capabilities,
        onRequest: options.ask ?? ((request) => answer(options, request)),
        onLog: hooks.onLog,
        onNotification: hooks.onNotification,
      }),
    idleMs: options.idleMs,
    keepOpen: hooks.keepOpen ?? (() => false),
  });
  const listing = new UpstreamTools({ ...options.upstream, listTools: set.list, refreshTools: set.refresh });
  return { set, listing };
}

function answer(options: SessionUpstreamOptions, request: UpstreamRequest): Promise<JsonObject> {
  const summary = upstreamSummary(request);
  return answerUpstreamRequest({
    peer: options.peer,
    request,
    sampling: options.sampling(request.server),
    roots: options.roots,
    timeoutMs: options.timeoutMs,
    record: ({ outcome, reason }) =>
      options.record([
        draft('upstream_request', {
          server: request.server,
          method: request.method,
          outcome,
          ...(reason === undefined ? {} : { reason }),
          summary,
        }),
      ]),
  });
}

function elicitationModes(elicitation: JsonObject): NonNullable<OfferedClientCapabilities['elicitation']> {
  const form = elicitation['form'];
  const url = elicitation['url'];
  // A client that declares `elicitation: {}` supports form mode (the 2025-06-18 shape).
  const hasForm = isJsonObject(form) || !isJsonObject(url);
  return {
    ...(hasForm ? { form: isJsonObject(form) ? form : {} } : {}),
    ...(isJsonObject(url) ? { url } : {}),
  };
}

function pick(value: JsonObject, keys: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const key of keys) {
    const item = value[key];
    if (item !== undefined) out[key] = item;
  }
  return out;
}
