import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configProblems } from '../../test/support/config-problems.ts';

const problems = (config: Record<string, unknown>): string[] => configProblems(config);

describe(
  'config: shares and backoff (gateway.maxSessionsPerTenant/PerKey, ' +
    'server.queueLimitPerTenant, server.authBackoff, server.trustedProxies)',
  () => {
    it('accepts shares, a backoff and proxies as addresses and CIDR ranges', () => {
      assert.deepEqual(
        problems({
          gateway: { maxSessions: 100, maxSessionsPerTenant: 25, maxSessionsPerKey: 10 },
          server: {
            queueLimit: 64,
            queueLimitPerTenant: 16,
            authBackoff: {
              enabled: true,
              freeFailures: 3,
              baseDelayMs: 500,
              maxDelayMs: 60_000,
              forgetAfterMs: 3_600_000,
            },
            trustedProxies: ['10.0.0.7', '10.0.0.0/8', '::1', 'fd00::/8'],
          },
        }),
        [],
      );
    });

    it('refuses a share below 1 and a negative queue share', () => {
      assert.equal(problems({ gateway: { maxSessionsPerTenant: 0 } }).length, 1);
      assert.equal(problems({ gateway: { maxSessionsPerKey: 0 } }).length, 1);
      assert.equal(problems({ server: { queueLimitPerTenant: -1 } }).length, 1);
    });

    it('refuses a proxy that is not an address or a range, saying what to write', () => {
      assert.deepEqual(problems({ server: { trustedProxies: ['proxy.internal', '10.0.0.0/33', '10.0.0.0/'] } }), [
        'server.trustedProxies.0: "proxy.internal" is not an IP address or a CIDR range: ' +
          'write an address or a CIDR range, e.g. "10.0.0.7", "10.0.0.0/8" or "fd00::/8"',
        `server.trustedProxies.1: "10.0.0.0/33": the range's prefix length must be 0 to ` +
          `32; write an address or a CIDR range, e.g. "10.0.0.7", "10.0.0.0/8" or "fd00::/8"`,
        `server.trustedProxies.2: "10.0.0.0/": the range's prefix length must be 0 to ` +
          `32; write an address or a CIDR range, e.g. "10.0.0.7", "10.0.0.0/8" or "fd00::/8"`,
      ]);
    });

    it('refuses an unknown backoff setting, suggesting the one meant', () => {
      assert.deepEqual(problems({ server: { authBackoff: { freeFailure: 3 } } }), [
        'server.authBackoff.freeFailure: unknown key — did you mean "freeFailures"?',
      ]);
    });
  },
);
