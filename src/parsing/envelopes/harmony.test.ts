import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractToolCalls } from '../index.ts';
import type { Envelope } from './envelope.ts';
import { findHarmonyCalls, harmonyContent } from './harmony.ts';

const CALL =
  '<|start|>assistant<|channel|>commentary to=functions.get_weather ' +
  '<|constrain|>json<|message|>{"location":"San Francisco"}<|call|>';
const TOOLS = ['get_weather', 'search'];

function named(env: Envelope | undefined): { name: string; args: string; reachesEnd: boolean } {
  const payload = env?.payloads[0];
  assert.ok(payload?.kind === 'named', JSON.stringify(env));
  return {
    name: payload.name,
    args:
      payload.args.kind === 'json'
        ? JSON.stringify([payload.args.span.start, payload.args.span.end])
        : payload.args.kind,
    reachesEnd: payload.reachesEnd,
  };
}

describe('findHarmonyCalls', () => {
  it('reads a commentary message with a recipient as a call named by its raw recipient', () => {
    const [env, ...rest] = findHarmonyCalls(CALL);
    assert.equal(rest.length, 0);
    assert.deepEqual(env?.span, { start: 0, end: CALL.length });
    assert.equal(env?.repairs, undefined);
    const payload = env?.payloads[0];
    assert.ok(payload?.kind === 'named' && payload.args.kind === 'json');
    assert.equal(payload.name, 'functions.get_weather');
    assert.equal(CALL.slice(payload.args.span.start, payload.args.span.end), '{"location":"San Francisco"}');
  });

  it('reads the recipient before the channel, and a content type without <|constrain|>', () => {
    const text =
      '<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{"location":"SF"}<|call|>';
    const [env] = findHarmonyCalls(text);
    assert.equal(named(env).name, 'functions.get_weather');
    assert.equal(env?.repairs, undefined);
  });

  it('reads a header whose <|start|>assistant was stripped, as a repair, and leaves text before it', () => {
    const text =
      'Checking.<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"location":"SF"}<|call|>';
    const [env] = findHarmonyCalls(text);
    assert.equal(env?.span.start, text.indexOf('<|channel|>'));
    assert.deepEqual(env?.repairs, ['missing_opener']);
    const leading = findHarmonyCalls(
      ' to=functions.get_weather<|channel|>commentary json<|message|>{"location":"SF"}<|call|>',
    )[0];
    assert.equal(leading?.span.start, 1);
    assert.equal(named(leading).name, 'functions.get_weather');
  });

  it('records <|end|> instead of <|call|>, and a call ended by the text', () => {
    const ended = findHarmonyCalls(
      '<|start|>assistant<|channel|>commentary to=functions.get_weather<|message|>{"location":"SF"}<|end|>',
    )[0];
    assert.deepEqual(ended?.repairs, ['broken_closer']);
    const open = findHarmonyCalls(
      '<|start|>assistant<|channel|>commentary to=functions.get_weather<|message|>{"location":"SF"}\n',
    )[0];
    assert.deepEqual(open?.repairs, ['missing_closer']);
    assert.equal(named(open).reachesEnd, false);
    const cut = findHarmonyCalls(
      '<|start|>assistant<|channel|>commentary to=functions.get_weather<|message|>{"location":"S',
    )[0];
    assert.equal(named(cut).reachesEnd, true);
    assert.equal(cut?.unclosed, true);
  });

  it('reads several calls in a row, one envelope each', () => {
    const text = `${CALL}${CALL.replace('get_weather', 'search')}`;
    const envelopes = findHarmonyCalls(text);
    assert.deepEqual(
      envelopes.map((env) => named(env).name),
      ['functions.get_weather', 'functions.search'],
    );
    assert.equal(envelopes[1]?.span.start, CALL.length);
  });

  it('holds analysis messages as reasoning (no payload) and leaves final, preamble and tool messages alone', () => {
    const analysis = '<|channel|>analysis<|message|>I will call get_weather.<|end|>';
    const [env] = findHarmonyCalls(analysis);
    assert.deepEqual(env?.payloads, []);
    assert.equal(env?.span.end, analysis.length);
    assert.deepEqual(findHarmonyCalls('<|start|>assistant<|channel|>final<|message|>Sunny.<|return|>'), []);
    assert.deepEqual(findHarmonyCalls('<|start|>assistant<|channel|>commentary<|message|>Let me check.<|end|>'), []);
    const result = findHarmonyCalls(
      '<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{"temp": 20}<|end|>',
    );
    assert.deepEqual(
      result.map((e) => e.payloads.length),
      [0],
    );
  });

  it('reads a built-in tool call made from the analysis channel', () => {
    const [env] = findHarmonyCalls(
      '<|start|>assistant<|channel|>analysis to=browser.search code<|message|>{"query": "weather"}<|call|>',
    );
    assert.equal(named(env).name, 'browser.search');
  });

  it('says what is wrong with arguments that are not JSON', () => {
    const payload = findHarmonyCalls(
      '<|start|>assistant<|channel|>commentary to=functions.get_weather<|message|>Paris<|call|>',
    )[0]?.payloads[0];
    assert.ok(payload?.kind === 'malformed');
    assert.match(payload.message, /get_weather.*not a JSON object/);
  });

  it('ignores tokens mentioned in prose', () => {
    assert.deepEqual(findHarmonyCalls('Harmony uses `<|message|>` and `<|call|>` tokens.'), []);
    assert.deepEqual(findHarmonyCalls('A message ends at <|message|> and to=x is a recipient.'), []);
  });
});

// End to end. The finder gives the raw recipient (`functions.get_weather`);
// these expectations rely on the central name cleaning to call `get_weather`.
describe('extractToolCalls with Harmony messages', () => {
  it('returns the call with a clean name and no content', () => {
    const result = extractToolCalls(CALL, { tools: TOOLS });
    assert.deepEqual(
      result.calls.map((c) => [c.name, c.arguments]),
      [['get_weather', { location: 'San Francisco' }]],
    );
    assert.equal(result.content, '');
    assert.equal(result.calls[0]?.raw, CALL);
  });

  it('repairs a stripped <|start|>assistant and reads two calls', () => {
    const text =
      `<|channel|>commentary to=functions.get_weather ` +
      (`<|constrain|>json<|message|>{"location":"SF"}<|call|>` +
        `${CALL.replace('get_weather', 'search').replace('{"location":"San Francisco"}', '{"q":"x"}')}`);
    const result = extractToolCalls(text, { tools: TOOLS });
    assert.deepEqual(
      result.calls.map((c) => c.name),
      ['get_weather', 'search'],
    );
    assert.ok(
      result.diagnostics.some(
        (d) => d.code === 'repaired' && d.name === 'get_weather' && d.repairs?.includes('missing_opener'),
      ),
    );
  });

  it('repairs a call the text ended before <|call|>', () => {
    const result = extractToolCalls('<|channel|>commentary to=functions.get_weather<|message|>{"location":"SF"}', {
      tools: TOOLS,
    });
    assert.deepEqual(
      result.calls.map((c) => [c.name, c.arguments]),
      [['get_weather', { location: 'SF' }]],
    );
    assert.ok(result.diagnostics.some((d) => d.code === 'repaired' && d.repairs?.includes('missing_closer')));
  });

  it('reports a reply cut mid-arguments as truncated', () => {
    const result = extractToolCalls('<|channel|>commentary to=functions.get_weather<|message|>{"location":"S', {
      tools: TOOLS,
      truncated: true,
    });
    assert.deepEqual(result.calls, []);
    assert.ok(result.diagnostics.some((d) => d.code === 'truncated'));
  });

  it('never reads a call out of analysis reasoning or a message without a recipient', () => {
    const analysis =
      '<|channel|>analysis<|message|>Call it like {"name": "get_weather", "arguments": {"location": "SF"}}.<|end|>';
    assert.deepEqual(extractToolCalls(analysis, { tools: TOOLS }).calls, []);
    const final = '<|start|>assistant<|channel|>final<|message|>{"name": "search", "arguments": {"q": "x"}}<|return|>';
    // A final message is content: what is in it is read as any content would be, never as a Harmony call.
    assert.ok(extractToolCalls(final, { tools: TOOLS }).calls.every((c) => c.raw !== final));
    const both = `${analysis}${CALL}`;
    const result = extractToolCalls(both, { tools: TOOLS });
    assert.deepEqual(
      result.calls.map((c) => c.arguments),
      [{ location: 'San Francisco' }],
    );
  });
});

describe('harmonyContent', () => {
  const ANALYSIS = '<|channel|>analysis<|message|>We need to use get_weather.<|end|>';
  const FINAL = '<|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>';

  it('is undefined for a text with no Harmony channel token', () => {
    assert.equal(harmonyContent('Just an answer.'), undefined);
    assert.equal(harmonyContent('Harmony marks channels with `<|channel|>`.'), undefined);
  });

  it('takes the final message as content and the analysis as reasoning, leaving calls out', () => {
    assert.deepEqual(harmonyContent(`${ANALYSIS}${CALL}${FINAL}`), {
      content: 'It is sunny.',
      reasoning: 'We need to use get_weather.',
    });
  });

  it('joins several final and analysis messages', () => {
    const text =
      `${ANALYSIS}${FINAL}<|start|>assistant<|channel|>analysis<|message|>Then ` +
      `more.<|end|><|start|>assistant<|channel|>final<|message|>And warm.<|end|>`;
    assert.deepEqual(harmonyContent(text), {
      content: 'It is sunny.\n\nAnd warm.',
      reasoning: 'We need to use get_weather.\n\nThen more.',
    });
  });

  it('gives empty content when no final message came', () => {
    assert.deepEqual(harmonyContent(`${ANALYSIS}${CALL}`), { content: '', reasoning: 'We need to use get_weather.' });
    assert.deepEqual(harmonyContent('<|start|>assistant<|channel|>commentary<|message|>Let me check.<|end|>'), {
      content: '',
      reasoning: '',
    });
  });

  it("never leaves tokens, tool results or a cut final message's header in the content", () => {
    const result = '<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{"temp": 20}<|end|>';
    const text = `${CALL}${result}<|start|>assistant<|channel|>final<|message|>Sunny, 20 degrees`;
    const read = harmonyContent(text);
    assert.deepEqual(read, { content: 'Sunny, 20 degrees', reasoning: '' });
    for (const token of ['<|start|>', '<|end|>', '<|return|>', '<|call|>', '<|channel|>', '<|message|>'])
      assert.ok(!read.content.includes(token));
  });

  it('reads the text left after the call envelope was taken out the same way', () => {
    const text = `${ANALYSIS}${CALL}${FINAL}`;
    const extracted = extractToolCalls(text, { tools: TOOLS });
    assert.deepEqual(
      extracted.calls.map((c) => c.name),
      ['get_weather'],
    );
    assert.deepEqual(harmonyContent(extracted.content), harmonyContent(text));
  });
});
