import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchRoute, type Route } from './router.ts';

const routes: Route<string>[] = [
  { method: 'GET', path: '/v1/runs', auth: true, handler: 'list' },
  { method: 'POST', path: '/v1/runs', auth: true, handler: 'create' },
  { method: 'GET', path: '/v1/runs/{id}', auth: true, handler: 'get' },
  { method: 'POST', path: '/v1/runs/{id}/cancel', auth: true, handler: 'cancel' },
];

describe('matchRoute', () => {
  it('matches method and path and decodes parameters', () => {
    const match = matchRoute(routes, 'GET', '/v1/runs/run%201');
    assert.equal(match.kind, 'found');
    assert.ok(match.kind === 'found');
    assert.equal(match.route.handler, 'get');
    assert.deepEqual(match.params, { id: 'run 1' });
  });

  it('tells a wrong method (with the allowed ones) from an unknown path', () => {
    assert.deepEqual(matchRoute(routes, 'DELETE', '/v1/runs'), { kind: 'method_not_allowed', allow: ['GET', 'POST'] });
    assert.deepEqual(matchRoute(routes, 'GET', '/v1/runs/abc/cancel'), { kind: 'method_not_allowed', allow: ['POST'] });
    assert.deepEqual(matchRoute(routes, 'GET', '/v1/runs/abc/nope'), { kind: 'not_found' });
    assert.deepEqual(matchRoute(routes, 'GET', '/v1/runs/'), { kind: 'not_found' });
  });

  it('refuses malformed percent-encoding as a usage error', () => {
    assert.throws(() => matchRoute(routes, 'GET', '/v1/runs/%E0%A4%A'), { code: 'usage' });
  });
});
