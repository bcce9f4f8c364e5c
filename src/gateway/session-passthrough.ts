import type { PassthroughSource } from '../core/index.ts';
import type { GatewaySession } from './gateway-session.ts';

/**
 * The resources, prompts and completions a session is served: over its own upstream connections when it has them
 * (a server may offer a client that declared sampling, elicitation or roots more, and may ask that client something
 * while it answers), else over the shared ones. Subscriptions go the same way (upstream-features.ts). Whether
 * subscriptions are offered at all is the shared connections' answer: it is declared before any session exists.
 */
export function sessionPassthrough(
  shared: PassthroughSource,
  session: () => Promise<GatewaySession>,
): PassthroughSource {
  const of = async (): Promise<PassthroughSource> => (await session()).upstream?.set.tools.passthrough ?? shared;
  return {
    listResources: async (options) => (await of()).listResources(options),
    listResourceTemplates: async (options) => (await of()).listResourceTemplates(options),
    readResource: async (uri, options) => (await of()).readResource(uri, options),
    listPrompts: async (options) => (await of()).listPrompts(options),
    getPrompt: async (name, args, options) => (await of()).getPrompt(name, args, options),
    complete: async (request, options) => {
      const passthrough = await of();
      return passthrough.complete === undefined
        ? { completion: { values: [], hasMore: false } }
        : passthrough.complete(request, options);
    },
    offersSubscribe: () => shared.offersSubscribe?.() === true,
    // Notifications are the hub's (shared connections) or the session's (own-notifications.ts), never routed here.
  };
}
