import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { askWhileCommitting } from './ask-while-committing.ts';
import type { AppendFn } from '../log/transition.ts';
import { rejection } from '../../../test/support/rejection.ts';

/** An append that records when it is started and settles as `outcome` says, a turn later. */
function appendThat(order: string[], outcome: 'commits' | 'fails' = 'commits'): AppendFn {
  return (drafts) => {
    order.push(`append(${drafts.length})`);
    return new Promise((resolve, reject) =>
      setImmediate(() => {
        order.push('committed');
        if (outcome === 'fails') reject(new Error('the store refused the commit'));
        else resolve([]);
      }),
    );
  };
}

describe('askWhileCommitting', () => {
  it('sends the request first, then starts the commit in the same turn, and answers once both are done', async () => {
    const order: string[] = [];
    const answer = await askWhileCommitting(appendThat(order), () => {
      order.push('ask');
      return new Promise<string>((resolve) => setImmediate(() => (order.push('answered'), resolve('the answer'))));
    });
    assert.equal(answer, 'the answer');
    // The request is made before the commit is queued: an HTTP client that writes it in the check phase
    // (undici, on a reused connection) goes ahead of a commit made in that phase (SQLite's group commit).
    assert.deepEqual(order.slice(0, 2), ['ask', 'append(0)']);
    assert.deepEqual([...order].sort(), ['answered', 'append(0)', 'ask', 'committed']);
  });

  it('a failed commit wins over the answer: the answer is never used without what preceded it', async () => {
    const order: string[] = [];
    const error = await rejection(askWhileCommitting(appendThat(order, 'fails'), () => Promise.resolve('an answer')));
    assert.match((error as Error).message, /refused the commit/);
  });

  it('a request that fails, or throws before it is sent, is reported once the commit is in', async () => {
    const failing = (): Promise<string> => Promise.reject(new Error('model down'));
    const throwing = (): Promise<string> => {
      throw new Error('model down');
    };
    for (const ask of [failing, throwing]) {
      const order: string[] = [];
      const error = await rejection(askWhileCommitting(appendThat(order), ask));
      assert.match((error as Error).message, /model down/);
      assert.ok(order.includes('committed'), 'the commit was awaited before the failure was reported');
    }
  });

  it('not alongside: the commit is awaited before the model is asked', async () => {
    const order: string[] = [];
    await askWhileCommitting(appendThat(order), () => (order.push('ask'), Promise.resolve('x')), false);
    assert.deepEqual(order, ['append(0)', 'committed', 'ask']);
  });
});
