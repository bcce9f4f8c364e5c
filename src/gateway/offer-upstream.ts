import type { Server } from '@modelcontextprotocol/server';
import type { Gateway } from './gateway.ts';
import type { GatewaySession } from './gateway-session.ts';
import { DEFAULT_SESSION_UPSTREAM_IDLE_MS } from './idle-session-tools.ts';
import { offeredCapabilities, openSessionUpstream, type SessionUpstreamHooks } from './session-upstream.ts';
import { UpstreamExchanges } from './upstream-exchanges.ts';
import { DEFAULT_SAMPLING } from './upstream-requests.ts';

/**
 * Gives the session upstream connections of its own when its client declared sampling, elicitation or roots
 * (decided once, when the session's connection is first known: its `peer`); otherwise it shares the gateway's.
 * `hooks`: what those servers tell this session (log messages, list changes, resource updates).
 */
export function offerUpstream(options: {
  gateway: Gateway;
  session: GatewaySession;
  hooks: SessionUpstreamHooks;
}): void {
  const { gateway, session, hooks } = options;
  const factory = gateway.options.sessionTools;
  const peer = session.peer ?? session.requestServer;
  if (session.upstreamDecided || factory === undefined || peer === undefined) return;
  session.upstreamDecided = true;
  const { exchanges } = session;
  session.upstream = openSessionUpstream({
    factory,
    peer,
    ...(exchanges === undefined ? {} : { ask: (request) => exchanges.ask(request) }),
    sampling: gateway.options.sampling ?? (() => DEFAULT_SAMPLING),
    roots: gateway.options.roots,
    timeoutMs: gateway.approvalTimeoutMs,
    upstream: { checkPins: gateway.options.checkPins, relistMs: gateway.options.relistMs },
    record: (drafts) => gateway.recordInSession(session, drafts),
    hooks,
    idleMs: gateway.options.sessionUpstreamIdleMs ?? DEFAULT_SESSION_UPSTREAM_IDLE_MS,
  });
  if (session.upstream === undefined) session.exchanges = undefined;
}

/**
 * A 2026-07-28 client is served per request and cannot be sent a request: its session's upstream requests are put
 * to it as input_required results of its calls (upstream-exchanges.ts). `server`: its request's, which knows what
 * the client declared (the envelope's client capabilities); call before offerUpstream.
 */
export function askThroughExchanges(options: { gateway: Gateway; session: GatewaySession; server: Server }): void {
  const { gateway, session, server } = options;
  if (session.upstreamDecided || gateway.options.sessionTools === undefined) return;
  const declared = offeredCapabilities(server);
  if (declared === undefined) return;
  session.requestServer = server;
  session.exchanges = new UpstreamExchanges({
    sampling: gateway.options.sampling ?? (() => DEFAULT_SAMPLING),
    roots: gateway.options.roots,
    canElicit: declared.elicitation?.form !== undefined,
    timeoutMs: gateway.approvalTimeoutMs,
    record: (drafts) => gateway.recordInSession(session, drafts),
  });
}
