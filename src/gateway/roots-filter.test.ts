import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filterRoots } from './roots-filter.ts';

const roots = [
  { uri: 'file:///work/project' },
  { uri: 'file:///work/project/sub' },
  { uri: 'file:///work-other' },
  { uri: 'file:///home/alice/secrets' },
];

describe('filterRoots (gateway.roots)', () => {
  it('passes every root on without patterns, at most 100', () => {
    assert.deepEqual(filterRoots(roots, undefined), roots);
    const many = Array.from({ length: 150 }, (_, i) => ({ uri: `file:///r/${i}` }));
    assert.equal(filterRoots(many, undefined).length, 100);
  });

  it('reads a URI without * as itself and what is under it, never a sibling sharing its prefix', () => {
    const uris = filterRoots(roots, ['file:///work']).map((r) => r.uri);
    assert.deepEqual(uris, ['file:///work/project', 'file:///work/project/sub']);
    assert.deepEqual(
      filterRoots(roots, ['file:///work/project']).map((r) => r.uri),
      ['file:///work/project', 'file:///work/project/sub'],
    );
  });

  it('matches * within one path segment and ** across segments', () => {
    assert.deepEqual(
      filterRoots(roots, ['file:///work/*']).map((r) => r.uri),
      ['file:///work/project'],
    );
    assert.deepEqual(
      filterRoots(roots, ['file:///work/**']).map((r) => r.uri),
      ['file:///work/project', 'file:///work/project/sub'],
    );
    assert.deepEqual(filterRoots(roots, ['file:///home/*/secret.']).length, 0);
  });
});
