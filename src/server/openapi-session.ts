import { SESSION_COOKIE } from './session.ts';
import { BROWSER_ERRORS, AUTH_ERRORS, error, json, type Schema } from './openapi-helpers.ts';

const sessionFields = {
  tenantId: { type: 'string' },
  userId: { type: 'string' },
  csrfToken: {
    type: 'string',
    description: 'Send it as X-CSRF-Token on every cookie-authenticated request other than GET/HEAD.',
  },
  expiresAt: { type: 'string', format: 'date-time' },
};

/** Browser sign-in and the models a caller may choose. */
export const sessionPaths: Record<string, Record<string, Schema>> = {
  '/v1/session': {
    post: {
      summary: 'Sign in: trade an API key for a session cookie',
      description:
        `Sets \`${SESSION_COOKIE}\` (HttpOnly, SameSite=Strict, Path=/, Max-Age; Secure over ` +
        `TLS or X-Forwarded-Proto: https). With no API keys configured: \`{anonymous: true, csrfToken}\`, no cookie.`,
      security: [],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              additionalProperties: false,
              required: ['apiKey'],
              properties: { apiKey: { type: 'string', minLength: 1 } },
            },
          },
        },
      },
      responses: {
        '200': {
          ...json(
            {
              type: 'object',
              required: ['csrfToken'],
              properties: {
                ...sessionFields,
                anonymous: { type: 'boolean', description: 'true: the server has no API keys; no cookie is needed.' },
              },
            },
            'Signed in.',
          ),
          headers: {
            'Set-Cookie': {
              schema: { type: 'string' },
              description: `${SESSION_COOKIE}=<token>; HttpOnly; SameSite=Strict; Path=/; Max-Age=<seconds>`,
            },
          },
        },
        '400': error('No apiKey in the body.'),
        '401': error('The key is not configured.'),
        ...BROWSER_ERRORS,
      },
    },
    get: {
      summary: 'Whether the request is signed in (session cookie or bearer key), and as whom; never 401',
      security: [],
      responses: {
        '200': json(
          {
            type: 'object',
            required: ['authenticated', 'keysRequired'],
            properties: {
              authenticated: { type: 'boolean' },
              keysRequired: {
                type: 'boolean',
                description: 'false: the server has no API keys and everyone is the anonymous caller.',
              },
              ...sessionFields,
              roles: { type: 'array', items: { type: 'string' }, description: 'The caller’s roles.' },
              issuer: { type: 'string', description: 'For a session opened through an OpenID issuer: which one.' },
              signIn: {
                type: 'array',
                description: 'Issuers the console may sign in with (auth.oidc[].console): a button each.',
                items: {
                  type: 'object',
                  required: ['issuer', 'url'],
                  properties: {
                    issuer: { type: 'string' },
                    url: { type: 'string', description: 'GET /v1/auth/login?issuer=…: navigate the page there.' },
                  },
                },
              },
            },
          },
          'The sign-in state; csrfToken and expiresAt only for a session cookie.',
        ),
      },
    },
    delete: {
      summary: 'Sign out: remove the session cookie',
      security: [],
      responses: {
        '204': {
          description: 'The cookie is cleared (Max-Age=0). Tokens are stateless: a copy stays valid until it expires.',
        },
        ...BROWSER_ERRORS,
      },
    },
  },
  '/v1/models': {
    get: {
      summary: 'Models this tenant may choose',
      responses: {
        '200': json(
          {
            type: 'object',
            required: ['models', 'object', 'data'],
            properties: {
              default: { type: 'string', description: 'What a run without `model` gets.' },
              models: {
                type: 'array',
                items: { type: 'string' },
                description:
                  'Model ids or patterns (`*` matches any characters), ' +
                  'as in `models:` narrowed by `tenants.<id>.models`.',
              },
              object: { const: 'list', description: 'OpenAI’s model list (the same body): SDKs that list models.' },
              data: {
                type: 'array',
                description: 'Every model named exactly (the default, then `models` without patterns).',
                items: {
                  type: 'object',
                  required: ['id', 'object', 'created', 'owned_by'],
                  properties: {
                    id: { type: 'string' },
                    object: { const: 'model' },
                    created: { type: 'integer' },
                    owned_by: { const: 'toolgate' },
                  },
                },
              },
            },
          },
          'The allowed models, as toolgate and as OpenAI list them.',
        ),
        ...AUTH_ERRORS,
      },
    },
  },
};
