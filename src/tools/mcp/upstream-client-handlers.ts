import type { Client } from '@modelcontextprotocol/client';
import { ToolgateError, isJsonObject, type JsonObject, type UpstreamClientOptions } from '../../core/index.ts';
import type { McpSdk } from './mcp-sdk.ts';

/**
 * JSON-RPC error code of a request toolgate's policy refused: the code MCP's examples use for a user who rejected a
 * sampling request, so a server treats it the same way.
 */
const REFUSED_CODE = -1;

/**
 * Lets `client` answer the server's sampling, elicitation and roots requests through `options.onRequest`, for the
 * capabilities it declares (the SDK refuses a handler for an undeclared one).
 */
export function installUpstreamClientHandlers(
  client: Client,
  sdk: McpSdk,
  options: { server: string; client: UpstreamClientOptions },
): void {
  const { server } = options;
  const { capabilities, onRequest } = options.client;
  const answer = async (
    method: 'sampling/createMessage' | 'elicitation/create' | 'roots/list',
    params: unknown,
    signal: AbortSignal,
  ): Promise<JsonObject> => {
    try {
      return await onRequest({ server, method, params: isJsonObject(params) ? params : {}, signal });
    } catch (error) {
      if (error instanceof ToolgateError && error.code === 'denied')
        throw new sdk.client.ProtocolError(REFUSED_CODE, error.message);
      throw error;
    }
  };
  // The results are the client's answers, handed on as the client sent them (the SDK checks the sampling and
  // elicitation results against their schemas before they go upstream).
  if (capabilities.sampling !== undefined)
    client.setRequestHandler(
      'sampling/createMessage',
      async (request, ctx) => (await answer(request.method, request.params, ctx.mcpReq.signal)) as never,
    );
  if (capabilities.elicitation !== undefined)
    client.setRequestHandler(
      'elicitation/create',
      async (request, ctx) => (await answer(request.method, request.params, ctx.mcpReq.signal)) as never,
    );
  if (capabilities.roots !== undefined)
    client.setRequestHandler(
      'roots/list',
      async (request, ctx) => (await answer(request.method, request.params ?? {}, ctx.mcpReq.signal)) as never,
    );
}

/** The client capabilities as the SDK takes them (the same JSON). */
export function declaredCapabilities(options: UpstreamClientOptions): JsonObject {
  const { sampling, elicitation, roots } = options.capabilities;
  return {
    ...(sampling === undefined ? {} : { sampling }),
    ...(elicitation === undefined ? {} : { elicitation }),
    ...(roots === undefined ? {} : { roots }),
  };
}
