import { error, json, type Schema } from './openapi-helpers.ts';

const metadata: Schema = {
  type: 'object',
  required: ['resource', 'authorization_servers', 'bearer_methods_supported', 'resource_name'],
  properties: {
    resource: { type: 'string', format: 'uri', description: 'auth.resource (or the request origin), + /mcp.' },
    authorization_servers: { type: 'array', items: { type: 'string', format: 'uri' } },
    bearer_methods_supported: { type: 'array', items: { const: 'header' } },
    scopes_supported: { type: 'array', items: { type: 'string' } },
    resource_name: { const: 'toolgate' },
  },
};

const operation = (summary: string): Record<string, Schema> => ({
  get: {
    summary,
    description:
      'OAuth 2.0 Protected Resource Metadata (RFC 9728): the issuers whose tokens are accepted (auth.oidc). A 401 ' +
      'names it in `WWW-Authenticate: Bearer resource_metadata="…"`, so MCP clients find the authorization server.',
    security: [],
    responses: {
      '200': json(metadata, 'The metadata.'),
      '404': error('No issuer is configured (auth.oidc).'),
    },
  },
});

/** RFC 9728 metadata routes (docs/security.md, "OAuth 2.1 / OpenID Connect"). */
export const protectedResourcePaths: Record<string, Record<string, Schema>> = {
  '/.well-known/oauth-protected-resource': operation('Protected resource metadata of the runs API'),
  '/.well-known/oauth-protected-resource/mcp': operation("Protected resource metadata of the gateway's /mcp"),
  '/.well-known/oauth-protected-resource/mcp/{endpoint}': operation(
    'Protected resource metadata of a virtual server of the gateway (gateway.endpoints), /mcp/{endpoint}',
  ),
};
