import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Message } from '../../core/index.ts';
import { estimateTokens, trimHistory } from './trim-history.ts';

const exchange = (n: number, output: string): Message[] => [
  { role: 'user', content: `question ${n}` },
  { role: 'assistant', content: '', toolCalls: [{ id: `c${n}`, name: 'read', arguments: '{}' }] },
  { role: 'tool', toolCallId: `c${n}`, name: 'read', content: output },
  { role: 'assistant', content: `answer ${n}` },
];

describe('trimHistory', () => {
  it('leaves history under the budget alone', () => {
    const history = exchange(1, 'short');
    assert.deepEqual(trimHistory(history, 1000), { messages: history });
  });

  it('shortens the oldest tool outputs first', () => {
    const history = [...exchange(1, 'a'.repeat(4000)), ...exchange(2, 'b'.repeat(4000))];
    const { messages, trimmed } = trimHistory(history, 1200);
    assert.equal(trimmed?.shortened, 1);
    assert.equal(trimmed?.dropped, 0);
    assert.match(messages[2]?.content ?? '', /^a{200}… \[shortened: 3800 characters left out\]$/);
    assert.equal(messages[6]?.content, 'b'.repeat(4000), 'the newest output is kept whole');
    assert.ok(estimateTokens(messages) <= 1200);
  });

  it('then drops the oldest messages, never starting with a tool result or an assistant turn', () => {
    const history = [...exchange(1, 'x'), ...exchange(2, 'y'), ...exchange(3, 'z')];
    const { messages, trimmed } = trimHistory(history, 40);
    assert.equal(messages[0]?.role, 'user');
    assert.ok((trimmed?.dropped ?? 0) >= 4);
    assert.ok((trimmed?.tokensAfter ?? Infinity) <= 40);
    assert.equal(messages.at(-1)?.content, 'answer 3');
  });
});
