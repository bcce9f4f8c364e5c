// Starts the test OpenID Provider (test/fixtures/oidc/provider.ts) as a real process and gets tokens from it.
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportJWK, generateKeyPair } from 'jose';
import { startProcess, type StartedProcess } from './processes.ts';

const PROVIDER = fileURLToPath(new URL('../fixtures/oidc/provider.ts', import.meta.url));

/** The fixture's options (see test/fixtures/oidc/provider.ts); keyFile defaults to a fresh key in `dir`. */
export interface OidcProviderOptions {
  /** Where the key file goes (a temp dir of the test). */
  dir: string;
  keyFile?: string;
  port?: number;
  accessTokenTtlSeconds?: number;
  scopes?: string[];
  service?: { clientId?: string; clientSecret?: string; claims?: Record<string, unknown> };
  consoleRedirectUris?: string[];
  roles?: Record<string, string[]>;
  defaultResource?: string;
}

export interface RunningOidcProvider extends StartedProcess {
  issuer: string;
  port: number;
  keyFile: string;
  /** A client-credentials access token (a JWT) for `resource`, of the `service` client unless another is named. */
  clientCredentialsToken(request: {
    resource: string;
    scope?: string;
    client?: { id: string; secret: string };
  }): Promise<string>;
}

/** Writes a new signing key (RS256, random kid) to a file the provider reads: a new file rotates its keys. */
export async function writeKeyFile(path: string): Promise<string> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'RS256', use: 'sig' };
  await writeFile(path, JSON.stringify({ keys: [jwk] }));
  return path;
}

/** Starts the provider; stop() ends it. Restarted with { port, keyFile: another }, it rotates keys (same issuer). */
export async function startOidcProvider(options: OidcProviderOptions): Promise<RunningOidcProvider> {
  const { dir, ...rest } = options;
  const keyFile = options.keyFile ?? (await writeKeyFile(join(dir, `key-${randomUUID()}.json`)));
  const started = await startProcess({
    command: process.execPath,
    args: [PROVIDER, JSON.stringify({ ...rest, keyFile })],
    ready: /^(\{"issuer".*\})$/m,
    timeoutMs: 15_000,
  });
  const { issuer, port }: { issuer: string; port: number } = JSON.parse(started.match[1] ?? '{}');
  return {
    ...started,
    issuer,
    port,
    keyFile,
    clientCredentialsToken: async ({ resource, scope, client }) => {
      const id = client?.id ?? options.service?.clientId ?? 'service';
      const secret = client?.secret ?? options.service?.clientSecret ?? 'service-secret';
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope: scope ?? 'toolgate' }),
      });
      const body: { access_token?: string } = await response.json();
      if (!response.ok || body.access_token === undefined) {
        throw new Error(`the provider gave no token (${response.status}): ${JSON.stringify(body)}`);
      }
      return body.access_token;
    },
  };
}
