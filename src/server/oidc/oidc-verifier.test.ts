import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JWK } from 'jose';
import { ToolgateError } from '../../core/errors.ts';
import { HttpError } from '../respond.ts';
import { OidcVerifier, type OidcIssuerOptions } from './oidc-verifier.ts';

const API = 'https://api.example.com';

interface Key {
  privateKey: CryptoKey;
  jwk: JWK;
}

async function newKey(kid: string): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

/** A real issuer over HTTP: its discovery document and a key set the test can rotate. */
async function startIssuer(): Promise<{ issuer: string; server: Server; keys: Key[]; jwksRequests: () => number }> {
  const state: { keys: Key[]; jwksRequests: number; issuer: string } = { keys: [], jwksRequests: 0, issuer: '' };
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') {
      res.end(JSON.stringify({ issuer: state.issuer, jwks_uri: `${state.issuer}/jwks` }));
    } else if (req.url === '/jwks') {
      state.jwksRequests += 1;
      res.end(JSON.stringify({ keys: state.keys.map((key) => key.jwk) }));
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  state.issuer = `http://127.0.0.1:${port}`;
  return { issuer: state.issuer, server, keys: state.keys, jwksRequests: () => state.jwksRequests };
}

describe('OidcVerifier', () => {
  let idp: Awaited<ReturnType<typeof startIssuer>>;
  let first: Key;
  const now = () => Math.floor(Date.now() / 1000);

  before(async () => {
    idp = await startIssuer();
    first = await newKey('k1');
    idp.keys.push(first);
  });
  after(() => new Promise<void>((resolve) => idp.server.close(() => resolve())));

  const verifier = (extra: Partial<OidcIssuerOptions> = {}) =>
    new OidcVerifier({ issuers: [{ issuer: idp.issuer, jwksCooldownMs: 0, ...extra }], resource: API });

  const token = (claims: Record<string, unknown> = {}, options: { key?: Key; exp?: number; nbf?: number } = {}) => {
    const key = options.key ?? first;
    const jwt = new SignJWT({ tenant: 'acme', roles: 'trader viewer', scope: 'toolgate', ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: key.jwk.kid ?? '' })
      .setIssuer(typeof claims['iss'] === 'string' ? claims['iss'] : idp.issuer)
      .setSubject('alice')
      .setAudience(typeof claims['aud'] === 'string' ? claims['aud'] : API)
      .setIssuedAt()
      .setExpirationTime(options.exp ?? now() + 300);
    if (options.nbf !== undefined) jwt.setNotBefore(options.nbf);
    return jwt.sign(key.privateKey);
  };

  const refused = async (promise: Promise<unknown>, pattern: RegExp) => {
    await assert.rejects(promise, (error: unknown) => {
      assert.ok(error instanceof ToolgateError, String(error));
      assert.equal(error.code, 'unauthorized');
      assert.match(error.message, pattern);
      return true;
    });
  };

  it('accepts a valid token and maps its claims to the caller', async () => {
    const identity = await verifier().verify(await token());
    assert.deepEqual(identity.caller, { tenantId: 'acme', userId: 'alice', roles: ['trader', 'viewer'] });
    assert.equal(identity.issuer, idp.issuer);
    assert.equal(identity.subject, 'alice');
    assert.ok(identity.expiresAt > Date.now());
  });

  it('refuses an expired token, with the time it expired', async () => {
    const exp = now() - 120;
    await refused(verifier().verify(await token({}, { exp })), /expired at .*clock tolerance 30 s/);
  });

  it('tolerates clock skew on nbf, up to the tolerance', async () => {
    await verifier().verify(await token({}, { nbf: now() + 10 }));
    await refused(verifier().verify(await token({}, { nbf: now() + 120 })), /not valid before/);
    await refused(
      verifier({ clockToleranceSeconds: 0 }).verify(await token({}, { nbf: now() + 10 })),
      /not valid before/,
    );
  });

  it('refuses a token for another audience, naming both', async () => {
    await refused(
      verifier().verify(await token({ aud: 'https://other.example.com' })),
      /audience "https:\/\/other\.example\.com" not accepted \(expected https:\/\/api\.example\.com/,
    );
    // The audience of the call (the gateway's /mcp) and a configured one.
    const mcp = await token({ aud: `${API}/mcp` });
    await verifier().verify(mcp, { audience: [`${API}/mcp`, API] });
    await verifier({ audience: ['x', `${API}/mcp`] }).verify(mcp);
  });

  it('refuses a token of an issuer that is not configured', async () => {
    await refused(
      verifier().verify(await token({ iss: 'https://evil.example.com' })),
      /issuer "https:\/\/evil\.example\.com" not configured \(auth\.oidc\[\]\.issuer/,
    );
  });

  it('refetches the keys on an unknown kid: a rotated key works, a removed one does not', async () => {
    const checker = verifier();
    await checker.verify(await token());
    const second = await newKey('k2');
    idp.keys.splice(0, idp.keys.length, second);
    const before = idp.jwksRequests();
    await checker.verify(await token({}, { key: second }));
    assert.equal(idp.jwksRequests(), before + 1);
    await refused(checker.verify(await token()), /signature does not verify with the issuer's keys/);
    idp.keys.splice(0, idp.keys.length, first);
  });

  it('fetches the keys again at most once per cooldown', async () => {
    const checker = verifier({ jwksCooldownMs: 60_000 });
    await checker.verify(await token());
    const before = idp.jwksRequests();
    const stranger = await newKey('k3');
    await refused(checker.verify(await token({}, { key: stranger })), /signature does not verify/);
    await refused(checker.verify(await token({}, { key: stranger })), /signature does not verify/);
    assert.equal(idp.jwksRequests(), before);
  });

  it('refuses an unsigned token and one signed with a shared secret', async () => {
    const unsigned = new UnsecuredJWT({ tenant: 'acme' })
      .setIssuer(idp.issuer)
      .setSubject('alice')
      .setAudience(API)
      .setExpirationTime('5m')
      .encode();
    assert.equal(OidcVerifier.looksLikeJwt(unsigned), true);
    await refused(verifier().verify(unsigned), /algorithm is not accepted|signature/);
    const hs = await new SignJWT({ tenant: 'acme' })
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .setIssuer(idp.issuer)
      .setSubject('alice')
      .setAudience(API)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('a'.repeat(32)));
    await refused(verifier().verify(hs), /algorithm is not accepted \(allowed: RS256/);
  });

  it('reads claims at dotted paths, a fixed tenant and a list of roles', async () => {
    const nested = await token({ org: { id: 'globex' }, realm: { roles: ['admin'] }, email: 'a@b.c' });
    const mapped = await verifier({ tenantClaim: 'org.id', rolesClaim: 'realm.roles', userClaim: 'email' }).verify(
      nested,
    );
    assert.deepEqual(mapped.caller, { tenantId: 'globex', userId: 'a@b.c', roles: ['admin'] });
    const fixed = await verifier({ tenant: 'initech' }).verify(await token({ tenant: undefined, roles: undefined }));
    assert.deepEqual(fixed.caller, { tenantId: 'initech', userId: 'alice' });
  });

  it('refuses claim values that are not acceptable, naming the claim', async () => {
    await refused(verifier().verify(await token({ tenant: '*' })), /"tenant" claim is not a tenant id/);
    await refused(verifier().verify(await token({ tenant: 'a/b' })), /"tenant" claim is not a tenant id/);
    await refused(verifier().verify(await token({ tenant: undefined })), /no "tenant" claim/);
    await refused(verifier().verify(await token({ roles: ['ok', 'no spaces'] })), /"roles" claim holds a value/);
    await refused(verifier().verify(await token({ roles: { admin: true } })), /"roles" claim must be a list/);
    await refused(verifier({ userClaim: 'uid' }).verify(await token({ uid: 'x\ny' })), /"uid" claim is not a user/);
  });

  it('requires the configured scopes', async () => {
    await verifier({ requiredScopes: ['toolgate'] }).verify(await token());
    await assert.rejects(verifier({ requiredScopes: ['admin', 'toolgate'] }).verify(await token()), (error) => {
      assert.ok(error instanceof ToolgateError);
      assert.equal(error.code, 'forbidden', 'a good token without the scope: 403, not 401');
      assert.match(error.message, /lacks the scope\(s\) admin /);
      assert.deepEqual(error.details, { bearerError: 'insufficient_scope', scope: 'admin' });
      return true;
    });
  });

  it('says 503 when the issuer cannot be reached, and refuses a discovery document of another issuer', async () => {
    const down = new OidcVerifier({ issuers: [{ issuer: 'http://127.0.0.1:9' }], resource: API });
    const key = await newKey('kd');
    const jwt = await token({ iss: 'http://127.0.0.1:9' }, { key });
    await assert.rejects(down.verify(jwt), (error: unknown) => {
      assert.ok(error instanceof HttpError);
      assert.equal(error.status, 503);
      assert.match(error.message, /issuer http:\/\/127\.0\.0\.1:9 cannot be reached/);
      return true;
    });
    const alias = idp.issuer.replace('127.0.0.1', 'localhost');
    const lying = new OidcVerifier({ issuers: [{ issuer: alias }], resource: API });
    await refused(lying.discovery(alias), /names issuer .* not http:\/\/localhost/);
  });

  it('tells JWTs from API keys by their shape', () => {
    assert.equal(OidcVerifier.looksLikeJwt('tg_live_abc123'), false);
    assert.equal(OidcVerifier.looksLikeJwt('a.b'), false);
    assert.equal(OidcVerifier.looksLikeJwt('eyJ0.eyJ0.c2ln'), true);
  });
});
