import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findDeepSeekCalls } from './deepseek.ts';

describe('findDeepSeekCalls', () => {
  it('reads the V3/R1 form: type, separator, name line, fenced JSON', () => {
    const text = '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Tokyo"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>';
    const [env] = findDeepSeekCalls(text);
    assert.equal(env?.span.end, text.length);
    const payload = env?.payloads[0];
    assert.ok(payload?.kind === 'named');
    assert.equal(payload.name, 'get_weather');
    assert.ok(payload.args.kind === 'json');
    assert.equal(text.slice(payload.args.span.start, payload.args.span.end), '{"city": "Tokyo"}');
  });

  it('reads the V3.1 form and ASCII look-alike tokens', () => {
    const text = '<|tool▁calls▁begin|><|tool▁call▁begin|>search<|tool▁sep|>{"q": 1}<|tool▁call▁end|><|tool▁calls▁end|>';
    const payload = findDeepSeekCalls(text)[0]?.payloads[0];
    assert.ok(payload?.kind === 'named');
    assert.equal(payload.name, 'search');
  });

  it('groups the calls of one block and leaves prose after it', () => {
    const text = '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>a<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁call▁begin｜>b<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜> bye';
    const envelopes = findDeepSeekCalls(text);
    assert.equal(envelopes.length, 1);
    assert.equal(envelopes[0]?.payloads.length, 2);
    assert.equal(text.slice(envelopes[0]?.span.end), ' bye');
  });

  it('marks a call cut at the end', () => {
    const payload = findDeepSeekCalls('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>a<｜tool▁sep｜>{"x": "cu')[0]?.payloads[0];
    assert.ok(payload?.kind === 'named');
    assert.equal(payload.reachesEnd, true);
  });
});
