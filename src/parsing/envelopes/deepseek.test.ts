import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractToolCalls } from '../index.ts';
import { findDeepSeekCalls } from './deepseek.ts';

describe('findDeepSeekCalls', () => {
  it('reads the V3/R1 form: type, separator, name line, fenced JSON', () => {
    const text =
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": ' +
      '"Tokyo"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>';
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
    const text =
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>a<｜tool▁sep｜>{}<｜tool▁call▁end｜><' +
      '｜tool▁call▁begin｜>b<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜> bye';
    const envelopes = findDeepSeekCalls(text);
    assert.equal(envelopes.length, 1);
    assert.equal(envelopes[0]?.payloads.length, 2);
    assert.equal(text.slice(envelopes[0]?.span.end), ' bye');
  });

  it('marks a call cut at the end', () => {
    const payload = findDeepSeekCalls('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>a<｜tool▁sep｜>{"x": "cu')[0]
      ?.payloads[0];
    assert.ok(payload?.kind === 'named');
    assert.equal(payload.reachesEnd, true);
  });
});

const BEGIN = '<｜tool▁calls▁begin｜>';
const CALL = '<｜tool▁call▁begin｜>';
const SEP = '<｜tool▁sep｜>';
const CALL_END = '<｜tool▁call▁end｜>';
const END = '<｜tool▁calls▁end｜>';
const EOS = '<｜end▁of▁sentence｜>';
const TOOLS = ['get_weather', 'search'];

describe('findDeepSeekCalls repairs', () => {
  it('reads calls whose block opener is missing, as a repair', () => {
    const text = `${CALL}get_weather${SEP}{"city": "Paris"}${CALL_END}${END}`;
    const [env] = findDeepSeekCalls(text);
    assert.deepEqual(env?.span, { start: 0, end: text.length });
    assert.deepEqual(env?.repairs, ['missing_opener']);
  });

  it('records a missing call closer and ends the call with its JSON and fence', () => {
    const text = `${CALL}function${SEP}get_weather\n\`\`\`json\n{"city": "Paris"}\n\`\`\`\nDone.`;
    const [env] = findDeepSeekCalls(text);
    assert.deepEqual(env?.repairs?.sort(), ['missing_closer', 'missing_opener']);
    assert.equal(text.slice(env?.span.end), '\nDone.');
    assert.equal(env?.unclosed, false);
  });

  it('takes a leaked end-of-sentence token with the block', () => {
    const text = `${BEGIN}${CALL}get_weather${SEP}{"city": "Paris"}${CALL_END}${END}${EOS}`;
    const [env] = findDeepSeekCalls(text);
    assert.equal(env?.span.end, text.length);
    assert.deepEqual(env?.repairs, ['leaked_sentinel']);
  });

  it('records a misspelled call closer', () => {
    const text = `${BEGIN}${CALL}get_weather${SEP}{"city": "Paris"}<｜tool▁call▁end>${END}`;
    assert.deepEqual(findDeepSeekCalls(text)[0]?.repairs, ['broken_closer']);
  });

  it("never takes another family's ASCII token (Kimi's <|tool_call_begin|>)", () => {
    assert.deepEqual(
      findDeepSeekCalls('<|tool_call_begin|>get_weather<|tool_call_argument_begin|>{"city": "X"}<|tool_call_end|>'),
      [],
    );
  });

  it('ignores tokens quoted in prose, and reports an empty block', () => {
    assert.deepEqual(findDeepSeekCalls(`DeepSeek opens calls with \`${BEGIN}\`.`), []);
    assert.deepEqual(findDeepSeekCalls(`A block starts with ${BEGIN} and then lists calls.`), []);
    const empty = findDeepSeekCalls(`${BEGIN}${END}`)[0]?.payloads[0];
    assert.ok(empty?.kind === 'malformed');
    assert.match(empty.message, /holds no call/);
  });
});

describe('findDeepSeekCalls with V3 fences and missing call tokens', () => {
  it('ends fenced arguments missing their `}` at the closing fence', () => {
    const text = `${BEGIN}${CALL}function${SEP}get_weather\n\`\`\`json\n{"city": "Tokyo"\n\`\`\`${CALL_END}${END}`;
    const payload = findDeepSeekCalls(text)[0]?.payloads[0];
    assert.ok(payload?.kind === 'named' && payload.args.kind === 'json');
    assert.equal(text.slice(payload.args.span.start, payload.args.span.end), '{"city": "Tokyo"');
    assert.equal(payload.reachesEnd, false);
    const result = extractToolCalls(text, { tools: TOOLS });
    assert.deepEqual(
      result.calls.map((c) => [c.name, c.arguments]),
      [['get_weather', { city: 'Tokyo' }]],
    );
    assert.equal(result.content, '');
  });

  it('ends fenced arguments at the closing fence when the call closer is missing too', () => {
    const text = `${BEGIN}${CALL}function${SEP}get_weather\n\`\`\`json\n{"city": "Tokyo"\n\`\`\`${END}`;
    const result = extractToolCalls(text, { tools: TOOLS });
    assert.deepEqual(
      result.calls.map((c) => [c.name, c.arguments]),
      [['get_weather', { city: 'Tokyo' }]],
    );
    const noClosers = extractToolCalls(
      `${CALL}function${SEP}get_weather\n\`\`\`json\n{"city": "Tokyo", "note": "a \`\`\` b"\n\`\`\`\nDone.`,
      { tools: TOOLS },
    );
    assert.deepEqual(
      noClosers.calls.map((c) => [c.name, c.arguments]),
      [['get_weather', { city: 'Tokyo', note: 'a ``` b' }]],
    );
    assert.equal(noClosers.content, 'Done.');
  });

  it('reads a call whose begin and end tokens are missing inside a block, as a repair', () => {
    const text = `${BEGIN}function${SEP}get_weather\n\`\`\`json\n{"city": "Tokyo"}\n\`\`\`${END}`;
    const [env] = findDeepSeekCalls(text);
    assert.deepEqual(env?.span, { start: 0, end: text.length });
    assert.ok(env?.repairs?.includes('missing_opener'));
    const result = extractToolCalls(`Sure. ${text}`, { tools: TOOLS });
    assert.deepEqual(
      result.calls.map((c) => [c.name, c.arguments]),
      [['get_weather', { city: 'Tokyo' }]],
    );
    assert.equal(result.content, 'Sure.');
    assert.ok(result.diagnostics.some((d) => d.code === 'repaired' && d.repairs?.includes('missing_opener')));
  });

  it('reports a reply cut after a block opener and a name as truncated, never as a call', () => {
    const text = `Let me look that up.${BEGIN}get_weather`;
    const payload = findDeepSeekCalls(text)[0]?.payloads[0];
    assert.ok(payload?.kind === 'named');
    assert.equal(payload.reachesEnd, true);
    assert.equal(payload.args.kind, 'none');
    const cut = extractToolCalls(text, { tools: TOOLS, truncated: true });
    assert.deepEqual(cut.calls, []);
    assert.ok(cut.diagnostics.some((d) => d.code === 'truncated'));
    assert.equal(cut.content, 'Let me look that up.');
    assert.deepEqual(extractToolCalls(text, { tools: TOOLS }).calls, []);
    // Prose after the opener is still a sentence about the token.
    assert.deepEqual(findDeepSeekCalls(`${BEGIN} opens a block of calls.`), []);
  });
});

describe('extractToolCalls with DeepSeek tokens', () => {
  it('repairs a missing block opener', () => {
    const result = extractToolCalls(`Sure.\n${CALL}get_weather${SEP}{"city": "Paris"}${CALL_END}`, { tools: TOOLS });
    assert.deepEqual(
      result.calls.map((c) => [c.name, c.arguments]),
      [['get_weather', { city: 'Paris' }]],
    );
    assert.equal(result.content, 'Sure.');
    assert.ok(result.diagnostics.some((d) => d.code === 'repaired' && d.repairs?.includes('missing_opener')));
  });

  it('repairs a missing closer at the end of a finished reply, and a leaked end token', () => {
    const open = extractToolCalls(`${BEGIN}${CALL}get_weather${SEP}{"city": "Paris"}`, { tools: TOOLS });
    assert.deepEqual(
      open.calls.map((c) => c.name),
      ['get_weather'],
    );
    assert.ok(open.diagnostics.some((d) => d.repairs?.includes('missing_closer')));
    const leaked = extractToolCalls(`${BEGIN}${CALL}get_weather${SEP}{"city": "Paris"}${CALL_END}${END}${EOS}`, {
      tools: TOOLS,
    });
    assert.equal(leaked.content, '');
    assert.ok(leaked.diagnostics.some((d) => d.repairs?.includes('leaked_sentinel')));
  });

  it('reports a reply cut mid-arguments as truncated', () => {
    const result = extractToolCalls(`${BEGIN}${CALL}get_weather${SEP}{"city": "Pa`, { tools: TOOLS, truncated: true });
    assert.deepEqual(result.calls, []);
    assert.ok(result.diagnostics.some((d) => d.code === 'truncated'));
  });

  it('tells the model about a call with no separator', () => {
    const result = extractToolCalls(`${BEGIN}${CALL}get_weather {"city": "Paris"}${CALL_END}${END}`, { tools: TOOLS });
    assert.deepEqual(result.calls, []);
    assert.ok(result.diagnostics.some((d) => d.code === 'malformed_call' && /tool▁sep/.test(d.message)));
  });
});
