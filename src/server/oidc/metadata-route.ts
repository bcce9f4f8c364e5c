import { ToolgateError } from '../../core/errors.ts';
import { readQuery } from '../query.ts';
import { sendJsonResponse } from '../respond.ts';
import type { RequestContext } from '../server-context.ts';
import { MCP_PATH, METADATA_PATH, isMcpPath, resourceBase, resourceFor } from './protected-resource.ts';

/** GET /.well-known/oauth-protected-resource: the runs API's OAuth Protected Resource Metadata (RFC 9728). */
export async function protectedResourceMetadata(ctx: RequestContext): Promise<void> {
  sendMetadata(ctx, '');
}

/** GET /.well-known/oauth-protected-resource/mcp: the gateway's (its resource is `<base>/mcp`). */
export async function mcpProtectedResourceMetadata(ctx: RequestContext): Promise<void> {
  sendMetadata(ctx, MCP_PATH);
}

/** GET /.well-known/oauth-protected-resource/mcp/{endpoint}: a virtual server's (resource `<base>/mcp/<name>`). */
export async function mcpEndpointProtectedResourceMetadata(ctx: RequestContext): Promise<void> {
  const path = `${MCP_PATH}/${ctx.params['endpoint'] ?? ''}`;
  // Only a configured virtual server is a resource: metadata for any name would describe endpoints that do not exist.
  if (!isMcpPath(path) || !ctx.state.mcpEndpoints.has(path)) {
    const known = [...ctx.state.mcpEndpoints];
    throw new ToolgateError(
      'not_found',
      `no protected resource metadata for ${path.slice(0, 100)}: no such MCP endpoint ` +
        `(${known.length === 0 ? 'gateway.endpoints configures none' : `configured: ${known.join(', ')}`})`,
    );
  }
  sendMetadata(ctx, path);
}

function sendMetadata(ctx: RequestContext, path: string): void {
  readQuery(ctx.url, []);
  const { oidc, resource } = ctx.state.auth;
  if (oidc === undefined) {
    throw new ToolgateError(
      'not_found',
      `no OAuth protected resource metadata (${METADATA_PATH}${path}): no token issuer is configured (auth.oidc)`,
    );
  }
  const scopes = [...new Set(oidc.issuers.flatMap((issuer) => issuer.requiredScopes ?? []))];
  sendJsonResponse(ctx.res, {
    status: 200,
    body: {
      resource: resourceFor(resourceBase(ctx.req, resource), path),
      authorization_servers: oidc.issuers.map((issuer) => issuer.issuer),
      bearer_methods_supported: ['header'],
      ...(scopes.length === 0 ? {} : { scopes_supported: scopes }),
      resource_name: 'toolgate',
    },
    // Public and the same for everyone: any page (a browser-based MCP client) may read it.
    headers: { 'Access-Control-Allow-Origin': '*' },
  });
}
