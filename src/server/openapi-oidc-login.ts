import type { Schema } from './openapi-helpers.ts';

const html = (description: string): Schema => ({
  description,
  content: { 'text/html': { schema: { type: 'string' } } },
});

/** Console sign-in with an OpenID issuer (docs/security.md, "Console sign-in with OpenID Connect"). */
export const oidcLoginPaths: Record<string, Record<string, Schema>> = {
  '/v1/auth/login': {
    get: {
      summary: 'Console sign-in: go to the issuer (authorization code + PKCE)',
      description:
        'A browser navigation. Redirects to the issuer with response_type=code, client_id, redirect_uri ' +
        '(`<auth.resource or this origin>/v1/auth/callback`), scope, state, nonce, code_challenge (S256) and ' +
        'resource, and sets `toolgate_login` (HttpOnly, SameSite=Lax, Path=/v1/auth/, 10 minutes, signed).',
      security: [],
      parameters: [
        {
          name: 'issuer',
          in: 'query',
          required: false,
          description: 'The issuer URL or its index in auth.oidc; optional when one issuer has a console client.',
          schema: { type: 'string' },
        },
        {
          name: 'return',
          in: 'query',
          required: false,
          description: 'The console route to come back to, e.g. `#/runs` (default).',
          schema: { type: 'string', pattern: '^#/' },
        },
      ],
      responses: {
        '302': { description: 'To the issuer’s authorization endpoint.' },
        '400': html('No console client configured, or an unknown issuer: a page that says which ones there are.'),
        '503': html('The issuer’s discovery document could not be read.'),
      },
    },
  },
  '/v1/auth/callback': {
    get: {
      summary: 'Console sign-in: the issuer’s answer',
      description:
        'Checks `state` against `toolgate_login`, trades the code (with the PKCE verifier), verifies the ID token ' +
        '(audience: the console client, nonce) and, when the access token is a JWT this server accepts, takes the ' +
        'identity from it. Sets the `toolgate_session` cookie (the identity inside, signed; never longer than the ' +
        'token) and redirects to the console.',
      security: [],
      parameters: ['code', 'state', 'iss', 'error', 'error_description'].map((name) => ({
        name,
        in: 'query',
        required: false,
        schema: { type: 'string' },
      })),
      responses: {
        '302': { description: 'Signed in: back to the console route the sign-in started from.' },
        '401': html('The issuer refused, the state or cookie does not match, or a token was refused: says why.'),
      },
    },
  },
};
