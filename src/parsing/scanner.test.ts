import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { BracketTracker, findNextRegion, scanRegion } from './scanner.ts';

const regionText = (text: string, from = 0): string | undefined => {
  const region = findNextRegion(text, from);
  return region === undefined ? undefined : text.slice(region.start, region.end);
};

describe('scanRegion', () => {
  it('finds the balanced object inside prose', () => {
    assert.equal(regionText('Sure: {"a": {"b": [1, 2]}} done'), '{"a": {"b": [1, 2]}}');
  });

  it('ignores brackets inside strings, including escaped quotes', () => {
    assert.equal(regionText('x {"a": "}]", "b": "say \\"}\\""} y'), '{"a": "}]", "b": "say \\"}\\""}');
  });

  it('reads single-quoted strings after { [ , : but not apostrophes in prose', () => {
    assert.equal(regionText("{'a': '}'} rest"), "{'a': '}'}");
    assert.equal(regionText('[Bob\'s list] and {"k": 1}'), "[Bob's list]");
  });

  it('lets a closer close the inner openers it skips', () => {
    const region = scanRegion('{"a": [1, 2} tail', 0);
    assert.equal(region.closed, true);
    assert.equal(region.end, 12);
  });

  it('treats a closer that matches nothing open as prose', () => {
    const region = scanRegion('{ ] }', 0);
    assert.equal(region.closed, true);
    assert.equal(region.end, 5);
  });

  it('reports a region left open at the limit', () => {
    assert.deepEqual(scanRegion('{"a": [1', 0), { start: 0, end: 8, closed: false, maxDepth: 2 });
    assert.equal(scanRegion('{"a": 1} x', 0, 4).closed, false);
  });

  it('tracks the deepest nesting', () => {
    assert.equal(scanRegion('[[[[]]]]', 0).maxDepth, 4);
  });

  it('stays linear on a megabyte of openers', () => {
    const region = scanRegion('{'.repeat(1 << 20), 0);
    assert.equal(region.closed, false);
    assert.equal(region.maxDepth, 1 << 20);
  });
});

describe('BracketTracker', () => {
  it('gives the same end whether fed at once or in pieces', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('{', '}', '[', ']', '"', "'", '\\', ':', ',', 'a', ' '), { maxLength: 60 }),
        fc.array(fc.nat(60), { maxLength: 5 }),
        (chars, cuts) => {
          const text = `{${chars.join('')}`;
          const whole = new BracketTracker().feed(text, 0, text.length);
          const tracker = new BracketTracker();
          const points = [...new Set(cuts.map((c) => Math.min(c, text.length)))].sort((a, b) => a - b);
          let from = 0;
          let end = -1;
          for (const to of [...points, text.length]) {
            if (end < 0 && to > from) end = tracker.feed(text, from, to);
            from = Math.max(from, to);
          }
          assert.equal(end, whole);
        },
      ),
    );
  });

  it('knows when it is inside a string', () => {
    const tracker = new BracketTracker();
    tracker.feed('{"a": "b', 0, 8);
    assert.equal(tracker.inString, true);
    tracker.feed('"', 0, 1);
    assert.equal(tracker.inString, false);
  });
});
