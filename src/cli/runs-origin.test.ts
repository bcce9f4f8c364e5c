import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeOrigin, originMetadata, readOrigin, type CliOrigin } from './runs-origin.ts';

describe('the origin a CLI run records', () => {
  const origin: CliOrigin = {
    cwd: '/w',
    config: '/w/toolgate.yaml',
    mcp: ['node server.js --state /w/s.json'],
    baseUrl: 'http://127.0.0.1:11434/v1',
    modelApiKey: true,
  };

  it('round-trips through run metadata, and holds no key', () => {
    const metadata = originMetadata(origin);
    assert.deepEqual(readOrigin(metadata), origin);
    assert.doesNotMatch(JSON.stringify(metadata), /sk-|apiKey"/);
    assert.deepEqual(readOrigin(originMetadata({ cwd: '/w', mcp: [], modelApiKey: false })), {
      cwd: '/w',
      mcp: [],
      modelApiKey: false,
    });
  });

  it('anything malformed is no origin at all (never half of one)', () => {
    assert.equal(readOrigin(undefined), undefined);
    assert.equal(readOrigin({ other: 1 }), undefined);
    assert.equal(readOrigin({ cli: { ...(originMetadata(origin)['cli'] as object), cwd: 'relative' } }), undefined);
    assert.equal(readOrigin({ cli: { cwd: '/w', mcp: [1], modelApiKey: false } }), undefined);
    assert.equal(readOrigin({ cli: { cwd: '/w', mcp: [], modelApiKey: false, config: 'rel.yaml' } }), undefined);
    assert.equal(readOrigin({ cli: { cwd: '/w', mcp: [] } }), undefined);
  });

  it('is described as the flags that reopen it', () => {
    assert.equal(describeOrigin(origin), "--config /w/toolgate.yaml --mcp 'node server.js --state /w/s.json' (in /w)");
    assert.equal(describeOrigin({ cwd: '/w', mcp: [], modelApiKey: false }), 'no tool servers (in /w)');
  });
});
