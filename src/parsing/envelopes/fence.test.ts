import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findFences } from './fence.ts';

const contents = (text: string): string[] =>
  findFences(text).map((f) => `${f.info}:${text.slice(f.content.start, f.content.end)}`);

describe('findFences', () => {
  it('finds fenced blocks with their info string', () => {
    assert.deepEqual(contents('a\n```json\n{"x": 1}\n```\nb\n~~~\nplain\n~~~'), ['json:{"x": 1}', ':plain']);
  });

  it('accepts one-line fences, glued closers and openers after text', () => {
    assert.deepEqual(contents('```json {"x": 1}```'), ['json:{"x": 1}']);
    assert.deepEqual(contents('```json\n{"x": 1}```'), ['json:{"x": 1}']);
    assert.deepEqual(contents('Sure! ```json\n{"x": 1}\n```'), ['json:{"x": 1}']);
  });

  it('does not open a fence on inline code', () => {
    assert.deepEqual(findFences('Run ```npm test``` now.\n{"x": 1}'), []);
  });

  it('marks a fence left open at the end', () => {
    const [fence] = findFences('```python\nprint(1)\n');
    assert.equal(fence?.closed, false);
    assert.equal(fence?.info, 'python');
  });

  it('needs a closer at least as long as the opener', () => {
    assert.deepEqual(contents('````md\n```\ninner\n```\n````'), ['md:```\ninner\n```']);
  });
});
