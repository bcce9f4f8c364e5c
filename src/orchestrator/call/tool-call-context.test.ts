import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { injectionContext } from './tool-call-context.ts';

describe('injectionContext', () => {
  it("puts the run's roles on user (roles: [] for a user without any), and no user without either", () => {
    assert.deepEqual(injectionContext({ userId: 'alice', tenantId: 'acme', roles: ['trader'] }), {
      user: { id: 'alice', roles: ['trader'] },
      tenant: { id: 'acme' },
    });
    assert.deepEqual(injectionContext({ userId: 'alice' }), { user: { id: 'alice', roles: [] } });
    assert.deepEqual(injectionContext({ roles: ['viewer'] }), { user: { roles: ['viewer'] } });
    assert.deepEqual(injectionContext({ tenantId: 'acme' }), { tenant: { id: 'acme' } });
  });
});
