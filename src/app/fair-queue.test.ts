import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { FairQueue } from './fair-queue.ts';

function drain(queue: FairQueue): string[] {
  const out: string[] = [];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) out.push(id);
  return out;
}

describe('FairQueue', () => {
  it('serves tenants in turn, each tenant’s runs in the order they came', () => {
    const queue = new FairQueue();
    for (const id of ['a1', 'a2', 'a3', 'a4']) queue.push(id, 'acme');
    queue.push('g1', 'globex');
    queue.push('n1', undefined);
    queue.push('g2', 'globex');
    assert.equal(queue.size, 7);
    assert.equal(queue.sizeOf('acme'), 4);
    assert.equal(queue.sizeOf(undefined), 1);
    assert.deepEqual(drain(queue), ['a1', 'g1', 'n1', 'a2', 'g2', 'a3', 'a4']);
    assert.equal(queue.size, 0);
  });

  it('keeps a run that is queued again in its place, and takes out a deleted one', () => {
    const queue = new FairQueue();
    queue.push('a1', 'acme');
    queue.push('a2', 'acme');
    queue.push('a1', 'acme');
    assert.equal(queue.size, 2);
    assert.equal(queue.delete('a1'), true);
    assert.equal(queue.delete('a1'), false);
    assert.equal(queue.has('a2'), true);
    queue.push('g1', 'globex');
    assert.equal(queue.delete('a2'), true);
    assert.equal(queue.sizeOf('acme'), 0);
    assert.deepEqual(drain(queue), ['g1']);
  });

  it(
    'property: every run comes out once; per tenant in order; no ' +
      'tenant waits behind more than one run of each other tenant',
    () => {
      fc.assert(
        fc.property(fc.array(fc.constantFrom('a', 'b', 'c', undefined), { maxLength: 60 }), (tenants) => {
          const queue = new FairQueue();
          tenants.forEach((tenant, i) => queue.push(`${tenant ?? '-'}${i}`, tenant));
          const out = drain(queue);
          assert.equal(out.length, tenants.length);
          for (const tenant of ['a', 'b', 'c', '-']) {
            const mine = out.filter((id) => id.startsWith(tenant));
            assert.deepEqual(
              mine,
              [...mine].sort((x, y) => Number(x.slice(1)) - Number(y.slice(1))),
            );
          }
          // Round by round: the k-th run of a tenant comes out before the (k+1)-th run of any tenant.
          const round = new Map<string, number>();
          let last = 0;
          for (const id of out) {
            const k = (round.get(id[0] ?? '') ?? 0) + 1;
            round.set(id[0] ?? '', k);
            assert.ok(k >= last, `${id} is run ${k} of its tenant after a run of round ${last}`);
            last = k;
          }
        }),
      );
    },
  );
});
