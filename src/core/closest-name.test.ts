import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closestName, didYouMean, editDistance } from './closest-name.ts';

describe('editDistance', () => {
  it('counts insertions, deletions and substitutions', () => {
    assert.equal(editDistance('', ''), 0);
    assert.equal(editDistance('abc', ''), 3);
    assert.equal(editDistance('comand', 'command'), 1);
    assert.equal(editDistance('prot', 'port'), 2);
    assert.equal(editDistance('kitten', 'sitting'), 3);
  });
});

describe('closestName', () => {
  const serverKeys = ['port', 'host', 'store', 'concurrency', 'queueLimit'];

  it('finds typos, transpositions and other spellings of a key', () => {
    assert.equal(closestName('comand', ['command', 'args', 'env', 'cwd']), 'command');
    assert.equal(closestName('prot', serverKeys), 'port');
    assert.equal(closestName('baseURL', ['baseUrl', 'apiKey']), 'baseUrl');
    assert.equal(closestName('max_steps', ['maxSteps', 'model']), 'maxSteps');
    assert.equal(closestName('aproval', ['effect', 'approval', 'inject']), 'approval');
  });

  it('counts a candidate containing the name as one edit', () => {
    assert.equal(closestName('timeout', ['timeoutMs', 'headers']), 'timeoutMs');
  });

  it('prefers the first of equally close candidates', () => {
    assert.equal(closestName('modle', ['model', 'models']), 'model');
  });

  it('suggests nothing when no candidate is a likely typo', () => {
    assert.equal(closestName('zzzzqq', serverKeys), undefined);
    assert.equal(closestName('', serverKeys), undefined);
    assert.equal(closestName('x'.repeat(65), ['x'.repeat(65)]), undefined);
    assert.equal(closestName('port', []), undefined);
  });

  it('does not suggest a name that shares nothing with a short one', () => {
    // Two edits are allowed for any name, but for "ab" two edits replace everything typed.
    assert.equal(closestName('ab', ['xy']), undefined);
    assert.equal(closestName('q', ['cwd', 'xy']), undefined);
    assert.equal(closestName('ur', ['url', 'cwd']), 'url');
  });
});

describe('didYouMean', () => {
  it('phrases the suggestion, or is empty', () => {
    assert.equal(didYouMean('comand', ['command']), ' — did you mean "command"?');
    assert.equal(
      didYouMean('--modle', ['--model'], (s) => s),
      ' — did you mean --model?',
    );
    assert.equal(didYouMean('zzzzqq', ['command']), '');
  });
});
