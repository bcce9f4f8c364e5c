import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import { ToolgateError, type CompletionRequest, type PassthroughSource } from '../core/index.ts';
import type { Gated } from './gated-results.ts';
import type { GatewaySession } from './gateway-session.ts';
import { LOG_LEVELS, isLogLevel, sessionLogLevel } from './log-level.ts';
import { OwnNotifications } from './own-notifications.ts';
import type { ServerAccess } from './server-access.ts';
import type { UpstreamHub } from './upstream-hub.ts';

export interface UpstreamFeaturesOptions {
  server: Server;
  passthrough: PassthroughSource | undefined;
  hub: UpstreamHub;
  sessionFor: () => Promise<GatewaySession>;
  /** The servers (and items) the session may use: the same check as resources/read. */
  access: () => Promise<ServerAccess>;
  /** Rate limit, redaction and size cut on what is forwarded (gated-results.ts). */
  gated: Gated;
}

/**
 * The server capabilities the gateway forwards beyond tools, resources and
 * prompts: `logging/setLevel` (kept per session), `completion/complete`
 * (routed to the server of the prompt or template) and
 * `resources/subscribe`/`unsubscribe` (counted across sessions). Each
 * capability must be declared before its handler is set.
 */
export function serveUpstreamFeatures(options: UpstreamFeaturesOptions): void {
  const { server, passthrough, hub, sessionFor, access, gated } = options;
  server.setRequestHandler('logging/setLevel', async (request) => {
    const level: unknown = request.params.level;
    if (!isLogLevel(level))
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `"${String(level).slice(0, 50)}" is not a log level: use one of ${LOG_LEVELS.join(', ')}`,
      );
    sessionLogLevel.set(await sessionFor(), level);
    return {};
  });
  if (passthrough === undefined) return;

  server.setRequestHandler(
    'completion/complete',
    gated('completion/complete', async (request, ctx) => {
      const { ref, argument, context } = request.params;
      const completion: CompletionRequest = {
        ref:
          ref.type === 'ref/prompt' ? { type: 'ref/prompt', name: ref.name } : { type: 'ref/resource', uri: ref.uri },
        argument: { name: argument.name, value: argument.value },
        ...(context?.arguments === undefined ? {} : { context: { arguments: context.arguments } }),
      };
      const open = await access();
      const answer = await asMcp(
        () => passthrough.complete?.(completion, { servers: open.server, signal: ctx.mcpReq.signal }) ?? noCompletion(),
      );
      return answer;
    }),
  );

  const subscriptions = hub.subscriptions;
  if (subscriptions === undefined || passthrough.offersSubscribe?.() !== true) return;
  server.setRequestHandler(
    'resources/subscribe',
    gated('resources/subscribe', async (request) => {
      const session = await sessionFor();
      if (session.peer === undefined)
        throw new ProtocolError(
          ProtocolErrorCode.InvalidRequest,
          'resources/subscribe needs a session that stays connected (stdio, or an HTTP session with Mcp-Session-Id); ' +
            'a 2026-07-28 client opens subscriptions/listen instead',
        );
      const open = await access();
      const uri = request.params.uri;
      const listed = (await passthrough.listResources()).find((r) => r['uri'] === uri);
      if (listed !== undefined && !open.item(listed))
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `resource ${uri} is not available to you`);
      // A session with connections of its own subscribes on them: their updates are for it alone.
      const on = OwnNotifications.subscriptionsOf(session) ?? subscriptions;
      await asMcp(() => on.subscribe(session, uri, open.server));
      return {};
    }),
  );
  server.setRequestHandler('resources/unsubscribe', async (request) => {
    const session = await sessionFor();
    (OwnNotifications.subscriptionsOf(session) ?? subscriptions).unsubscribe(session, request.params.uri);
    return {};
  });
}

function noCompletion(): Promise<{ completion: { values: string[]; hasMore: boolean } }> {
  return Promise.resolve({ completion: { values: [], hasMore: false } });
}

/** A ToolgateError as the MCP error a client understands. */
async function asMcp<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (!(error instanceof ToolgateError)) throw error;
    const invalid = error.code === 'not_found' || error.code === 'invalid_arguments';
    throw new ProtocolError(invalid ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError, error.message);
  }
}
