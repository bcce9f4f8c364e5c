import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isModelAllowed, matchModelPattern } from './is-model-allowed.ts';

describe('isModelAllowed', () => {
  it('allows only the default model when no list is configured', () => {
    const access = { defaultModel: 'openai:gpt-4o-mini' };
    assert.deepEqual(isModelAllowed('openai:gpt-4o-mini', access), { allowed: true, choices: ['openai:gpt-4o-mini'] });
    assert.deepEqual(isModelAllowed('openai:gpt-4o', access), { allowed: false, choices: ['openai:gpt-4o-mini'] });
    assert.equal(isModelAllowed('scripted:/etc/passwd', access).allowed, false);
    assert.deepEqual(isModelAllowed('openai:x', {}), { allowed: false, choices: [] });
  });

  it('matches server-wide patterns, narrowed by the tenant list', () => {
    const access = { defaultModel: 'openai:gpt-4o-mini', models: ['openai:*', 'ollama:qwen2.5:7b'] };
    assert.equal(isModelAllowed('openai:gpt-4.1', access).allowed, true);
    assert.equal(isModelAllowed('ollama:qwen2.5:7b', access).allowed, true);
    assert.equal(isModelAllowed('ollama:llama3', access).allowed, false);
    const narrowed = { ...access, tenantModels: ['openai:gpt-4.1*'] };
    assert.equal(isModelAllowed('openai:gpt-4.1-mini', narrowed).allowed, true);
    assert.equal(isModelAllowed('openai:o3', narrowed).allowed, false);
    assert.equal(isModelAllowed('openai:gpt-4o-mini', narrowed).allowed, true, 'the default model stays allowed');
    assert.equal(
      isModelAllowed('anthropic:claude', { ...access, tenantModels: ['anthropic:*'] }).allowed,
      false,
      'a tenant list cannot widen the server list',
    );
  });

  it('names in its choices what the caller can use, whichever list is the narrower', () => {
    const wide = isModelAllowed('openai:o3', {
      defaultModel: 'openai:mock',
      models: ['openai:gpt-4o*'],
      tenantModels: ['openai:*'],
    });
    assert.deepEqual(wide.choices, ['openai:mock', 'openai:gpt-4o*']);
    const exact = isModelAllowed('openai:o3', {
      defaultModel: 'openai:mock',
      models: ['openai:gpt-4o-mini', 'openai:gpt-4o', 'ollama:x'],
      tenantModels: ['openai:gpt-4o*'],
    });
    assert.deepEqual(exact.choices, ['openai:mock', 'openai:gpt-4o-mini', 'openai:gpt-4o']);
    assert.deepEqual(isModelAllowed('x:y', { models: ['openai:*'], tenantModels: ['openai:gpt-4o*'] }).choices, [
      'openai:gpt-4o*',
    ]);
  });

  it('never lets a pattern reach a scripted file: only an exact entry does', () => {
    const access = { models: ['*', 'scripted:*', 'scripted:./demo.json'] };
    assert.equal(isModelAllowed('scripted:./demo.json', access).allowed, true);
    assert.equal(isModelAllowed('scripted:/etc/passwd', access).allowed, false);
    assert.equal(isModelAllowed('scripted:/dev/zero', access).allowed, false);
    assert.equal(isModelAllowed('scripted:./demo.json/../../etc/passwd', access).allowed, false);
  });
});

describe('matchModelPattern', () => {
  it('treats * as any characters and everything else literally', () => {
    assert.equal(matchModelPattern('openai:gpt-4o*', 'openai:gpt-4o-mini'), true);
    assert.equal(matchModelPattern('openai:*-mini', 'openai:gpt-4o-mini'), true);
    assert.equal(matchModelPattern('openai:*-mini', 'openai:gpt-4o'), false);
    assert.equal(matchModelPattern('openai:gpt.4o', 'openai:gpt-4o'), false, 'a dot is not a wildcard');
    assert.equal(matchModelPattern('a*a', 'a'), false);
  });

  it('agrees with a regular-expression reading of the pattern', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-c*:]{0,8}$/), fc.stringMatching(/^[a-c:]{0,10}$/), (pattern, model) => {
        const re = new RegExp(
          `^${pattern
            .split('*')
            .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('.*')}$`,
          's',
        );
        assert.equal(matchModelPattern(pattern, model), re.test(model));
      }),
      { numRuns: 500 },
    );
  });
});
