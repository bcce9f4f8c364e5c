import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configProblems } from '../../test/support/config-problems.ts';

function problems(server: unknown): string[] {
  return configProblems({ server }, { SESSION_SECRET: 's'.repeat(40) });
}

describe('config: browser access (server.cors, server.sessionSecret, server.sessionTtlSeconds)', () => {
  it('accepts origins, a long secret (also from env:) and a lifetime in range', () => {
    assert.deepEqual(
      problems({
        cors: { origins: ['https://app.example.com', 'http://localhost:5173'] },
        sessionSecret: 'env:SESSION_SECRET',
        sessionTtlSeconds: 3600,
      }),
      [],
    );
    assert.deepEqual(problems({ sessionTtlSeconds: 60 }), []);
    assert.deepEqual(problems({ sessionTtlSeconds: 2_592_000 }), []);
  });

  it('refuses "*" and says why', () => {
    const [line] = problems({ cors: { origins: ['*'] } });
    assert.match(line ?? '', /^server\.cors\.origins\.0: "\*" is not allowed: list each origin/);
  });

  it('refuses an origin with a path, a trailing slash or no scheme, naming the origin meant', () => {
    assert.deepEqual(problems({ cors: { origins: ['https://app.example.com/'] } }), [
      'server.cors.origins.0: must be an origin (scheme, host and optional port; no path, query ' +
        'or trailing slash, lower case, no default port): did you mean "https://app.example.com"?',
    ]);
    assert.match(
      problems({ cors: { origins: ['https://app.example.com/console'] } })[0] ?? '',
      /did you mean "https:\/\/app\.example\.com"/,
    );
    assert.match(
      problems({ cors: { origins: ['app.example.com'] } })[0] ?? '',
      /must be an origin such as https:\/\/app\.example\.com|must start with http/,
    );
    assert.match(
      problems({ cors: { origins: ['ftp://app.example.com'] } })[0] ?? '',
      /must start with http:\/\/ or https:\/\//,
    );
    assert.deepEqual(problems({ cors: { origin: ['https://a.example'] } }).sort(), [
      'server.cors.origin: unknown key — did you mean "origins"?',
      'server.cors.origins: is required: a list of origins, e.g. origins: ["https://app.example.com"]',
    ]);
    assert.deepEqual(problems({ cors: { origins: 'https://a.example' } }), [
      'server.cors.origins: must be a list of origins, e.g. origins: ["https://app.example.com"]',
    ]);
  });

  it('refuses a short secret and a lifetime out of range', () => {
    assert.match(
      problems({ sessionSecret: 'too-short' })[0] ?? '',
      /^server\.sessionSecret: the session secret must be at least 32 characters/,
    );
    assert.deepEqual(problems({ sessionTtlSeconds: 59 }), ['server.sessionTtlSeconds: must be at least 60 (seconds)']);
    assert.deepEqual(problems({ sessionTtlSeconds: 2_592_001 }), [
      'server.sessionTtlSeconds: must be at most 2592000 (30 days)',
    ]);
    assert.deepEqual(problems({ sessionTtlSeconds: 90.5 }), [
      'server.sessionTtlSeconds: must be a whole number of seconds',
    ]);
  });
});
