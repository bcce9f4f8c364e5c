// Property tests: the extractor never throws and keeps its invariants on any
// input; valid calls come back intact; repairJson leaves valid JSON alone; the
// stream filter never shows a byte of a call and does not depend on how the
// text was split; no parser throws or overflows its stack on deep, huge or
// unterminated nesting, and none lets a value past the shape limits through.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { loadCorpus } from '../../test/fixtures/parsing/corpus.ts';
import { isJsonObject } from '../core/json.ts';
import { checkJsonShape } from '../core/json-shape.ts';
import type { JsonObject } from '../core/json.ts';
import { extractDetailed, extractToolCalls } from './extract-tool-calls.ts';
import { DEFAULT_MAX_READ_DEPTH } from './lenient-json.ts';
import { parsePythonicCalls } from './pythonic.ts';
import { repairArguments } from './repair-arguments.ts';
import { repairJson } from './repair-json.ts';
import { createStreamFilter } from './stream-filter.ts';
import { extractFromMessage } from './extract-message.ts';
import { PARSE_DIAGNOSTIC_CODES } from './types.ts';
import type { Span } from './types.ts';
import { parseJson } from '../core/parse-json.ts';

const TOOLS = ['get_weather', 'search_web', 'x'];
const corpusTexts = loadCorpus()
  .filter((c) => c.native !== true && c.text !== undefined && c.text !== '')
  .map((c) => c.text ?? '');

/** Pieces of every envelope family, to build inputs that reach deep into the parsers. */
const TOKENS = [
  '<tool_call>',
  '</tool_call>',
  '<|tool_call|>',
  '<function=get_weather>',
  '</function>',
  '<parameter=city>',
  '</parameter>',
  '<arg_key>',
  '</arg_key>',
  '<arg_value>',
  '</arg_value>',
  '[TOOL_CALLS]',
  '[ARGS]',
  '<|python_tag|>',
  '<|eom_id|>',
  '<｜tool▁calls▁begin｜>',
  '<｜tool▁call▁begin｜>',
  '<｜tool▁sep｜>',
  '<｜tool▁call▁end｜>',
  '<minimax:tool_call>',
  '<invoke name="x">',
  '<think>',
  '</think>',
  '```',
  '```json\n',
  '~~~',
  '\n',
  ' ',
  'tool:',
  'get_weather',
  'x',
  '(',
  ')',
  '=',
  '{',
  '}',
  '[',
  ']',
  '"',
  "'",
  ':',
  ',',
  '\\',
  '//',
  '/*',
  '*/',
  '"name"',
  '"arguments"',
  '"get_weather"',
  'True',
  'None',
  'e.g.',
  'For example:',
  '> ',
  '`',
  '<|tool_calls_section_begin|>',
  '<|tool_call_begin|>',
  'functions.get_weather:0',
  '<|tool_call_argument_begin|>',
  '<|tool_call_end|>',
  '<|tool_calls_section_end|>',
  '<|start|>assistant',
  '<|channel|>commentary',
  ' to=functions.get_weather',
  '<|constrain|>json',
  '<|message|>',
  '<|call|>',
  '<|end|>',
  '<｜DSML｜function_calls>',
  '<｜DSML｜invoke name="get_weather">',
  '<｜DSML｜parameter name="city" string="true">',
  '</｜DSML｜parameter>',
  '</｜DSML｜invoke>',
  '[TOOL_CALL]',
  '{tool => "get_weather", args => {',
  '--city "x"',
  '[/TOOL_CALL]',
  '```tool_code\n',
  'get_weather[ARGS]',
  '<|im_end|>',
  '</s>',
  '{"method": "get_weather", "params": ',
];
const tokenSoup = fc.array(fc.constantFrom(...TOKENS), { maxLength: 40 }).map((parts) => parts.join(''));
const anyText = fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ maxLength: 200 }), tokenSoup);

const edit = fc.record({
  kind: fc.constantFrom('delete', 'insert', 'duplicate', 'cut'),
  at: fc.nat(),
  length: fc.nat(20),
  token: fc.constantFrom(...TOKENS),
});
const mutated = fc
  .tuple(fc.constantFrom(...corpusTexts), fc.array(edit, { minLength: 1, maxLength: 4 }))
  .map(([text, edits]) =>
    edits.reduce((s, e) => {
      const at = s.length === 0 ? 0 : e.at % (s.length + 1);
      if (e.kind === 'delete') return s.slice(0, at) + s.slice(at + e.length);
      if (e.kind === 'insert') return s.slice(0, at) + e.token + s.slice(at);
      if (e.kind === 'duplicate') return s.slice(0, at + e.length) + s.slice(at);
      return s.slice(0, at);
    }, text),
  );

/** Runs of openers, closers and out-of-range numbers in JSON, JSON5-ish and pythonic syntax, behind an envelope. */
const NEST_UNITS = ['[', ']', '{"a":', "{'a':", '{a:', '}', '(', ')', 'f(', '[f(a=', '"', "'", '1e400', ', ', '"x" + '];
const ENVELOPE_HEADS = [
  '',
  'Here: ',
  '<tool_call>',
  '{"name": "get_weather", "arguments": ',
  '[TOOL_CALLS]get_weather[ARGS]',
  '[get_weather(a=',
  '<|python_tag|>',
  '```json\n',
  '<function=get_weather><parameter=a>',
];
const deepText = fc
  .tuple(
    fc.constantFrom(...ENVELOPE_HEADS),
    fc.array(fc.tuple(fc.constantFrom(...NEST_UNITS), fc.integer({ min: 1, max: 4_000 })), {
      minLength: 1,
      maxLength: 4,
    }),
    fc.constantFrom('', '}', ']}', ')]', '</tool_call>', '\n```'),
  )
  .map(([head, runs, tail]) => head + runs.map(([unit, times]) => unit.repeat(times)).join('') + tail);

function assertInvariants(text: string, truncated: boolean): void {
  const result = extractToolCalls(text, { tools: TOOLS, truncated });
  for (const call of result.calls) {
    assert.ok(TOOLS.includes(call.name), `call to undeclared ${call.name}`);
    assert.ok(isJsonObject(call.arguments));
    assert.ok(call.span.start >= 0 && call.span.end <= text.length && call.span.start <= call.span.end);
    assert.equal(call.raw, text.slice(call.span.start, call.span.end));
  }
  for (const d of result.diagnostics) assert.ok((PARSE_DIAGNOSTIC_CODES as readonly string[]).includes(d.code));
  assert.equal(typeof result.content, 'string');
}

function withoutSpans(text: string, from: number, spans: readonly Span[]): string {
  let out = '';
  let pos = from;
  for (const span of [...spans].sort((a, b) => a.start - b.start)) {
    if (span.end <= pos) continue;
    if (span.start > pos) out += text.slice(pos, span.start);
    pos = Math.max(pos, span.end);
  }
  return out + text.slice(pos);
}

/** Streams `text` cut at `cuts`; returns the text shown by pushes and by end(). */
function stream(text: string, cuts: readonly number[], tools = TOOLS): { pushed: string; rest: string } {
  const filter = createStreamFilter({ tools });
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  let pushed = '';
  let from = 0;
  for (const to of [...points, text.length]) {
    pushed += filter.push(text.slice(from, to));
    from = to;
  }
  return { pushed, rest: filter.end() };
}

const nativeCall = fc.record({
  name: fc.constantFrom(...TOOLS, 'functions.get_weather:0', 'nope', ''),
  arguments: fc.oneof(
    anyText,
    fc.jsonValue().map((v) => JSON.stringify(v)),
  ),
});

describe('parsing properties', () => {
  it('extractFromMessage never throws and only returns declared tools with object arguments', () => {
    fc.assert(
      fc.property(
        anyText,
        anyText,
        fc.array(nativeCall, { maxLength: 3 }),
        fc.boolean(),
        (text, reasoning, toolCalls, truncated) => {
          const result = extractFromMessage({ text, reasoning, toolCalls, truncated, tools: TOOLS });
          for (const call of result.calls) {
            assert.ok(TOOLS.includes(call.name), `call to undeclared ${call.name}`);
            assert.ok(isJsonObject(call.arguments));
          }
          for (const d of result.diagnostics) assert.ok((PARSE_DIAGNOSTIC_CODES as readonly string[]).includes(d.code));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('every envelope that leaves the content yields a call or a diagnostic inside it', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...corpusTexts), tokenSoup, mutated), fc.boolean(), (text, truncated) => {
        const { result, removed } = extractDetailed(text, { tools: TOOLS, truncated });
        const accounted = [
          ...result.calls.map((c) => c.span),
          ...result.diagnostics.flatMap((d) => (d.span === undefined ? [] : [d.span])),
        ];
        // A reply that is only a structured answer object (`{"action": "Final Answer", …}`) leaves as its answer.
        const answered = result.content !== withoutSpans(text, 0, removed).trim();
        // Overlapping spans (a fence around a tag call) leave together: they are one removal.
        const merged: Span[] = [];
        for (const span of [...removed].sort((a, b) => a.start - b.start)) {
          const last = merged.at(-1);
          if (last !== undefined && span.start < last.end) last.end = Math.max(last.end, span.end);
          else merged.push({ ...span });
        }
        for (const span of merged) {
          assert.ok(
            answered ||
              accounted.some((a) => a.start < span.end && a.end > span.start) ||
              text.slice(span.start, span.end).trim() === '',
            `removed ${JSON.stringify(text.slice(span.start, span.end).slice(0, 80))} with no call or diagnostic`,
          );
        }
      }),
      { numRuns: 400 },
    );
  });

  it('a valid native call comes back unchanged, with no repair recorded', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (args) => {
        const json = JSON.stringify(args);
        const result = extractFromMessage({
          toolCalls: [{ id: 'c', name: 'get_weather', arguments: json }],
          tools: TOOLS,
        });
        assert.deepEqual(
          result.calls.map((c) => [c.name, c.arguments]),
          [['get_weather', parseJson(json) as JsonObject]],
        );
        assert.deepEqual(result.diagnostics, []);
      }),
      { numRuns: 300 },
    );
  });

  it('extractToolCalls never throws and keeps its invariants on arbitrary text', () => {
    fc.assert(
      fc.property(anyText, fc.boolean(), (text, truncated) => assertInvariants(text, truncated)),
      { numRuns: 400 },
    );
  });

  it('extractToolCalls never throws on mutated corpus cases', () => {
    fc.assert(
      fc.property(mutated, fc.boolean(), (text, truncated) => assertInvariants(text, truncated)),
      { numRuns: 400 },
    );
  });

  it('no parser throws on deep, huge or unterminated nesting, and no value past the limits gets through', () => {
    fc.assert(
      fc.property(deepText, fc.boolean(), (text, truncated) => {
        assertInvariants(text, truncated);
        for (const call of extractToolCalls(text, { tools: TOOLS, truncated }).calls)
          assert.equal(checkJsonShape(call.arguments), undefined);
        const args = repairArguments(text);
        if (args.ok) assert.equal(checkJsonShape(args.arguments), undefined);
        const json = repairJson(text);
        if (json.ok) assert.equal(checkJsonShape(json.value, { maxDepth: DEFAULT_MAX_READ_DEPTH }), undefined);
        assert.equal(typeof parsePythonicCalls(text).ok, 'boolean');
        const { pushed, rest } = stream(text, [text.length >> 1]);
        assert.ok(text.startsWith(pushed) && typeof rest === 'string');
      }),
      { numRuns: 60 },
    );
  });

  it('repairArguments refuses any arguments holding a number out of range, wherever it is', () => {
    const placeholder = '"\\u0000out-of-range\\u0000"';
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })),
        fc.integer({ min: 309, max: 100_000 }),
        fc.boolean(),
        (data, exponent, negative) => {
          const text = JSON.stringify({ data, n: [parseJson(placeholder) as string] }).replace(
            placeholder,
            `${negative ? '-' : ''}1e${exponent}`,
          );
          const result = repairArguments(text);
          assert.equal(result.ok, false);
          if (!result.ok) assert.match(result.message, /out of range/);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a valid JSON call comes back with deep-equal arguments, in any envelope', () => {
    const envelopes = [
      (json: string) => json,
      (json: string) => `Calling the tool now.\n${json}`,
      (json: string) => `<tool_call>\n${json}\n</tool_call>`,
      (json: string) => `\`\`\`json\n${json}\n\`\`\``,
      (json: string) => `[TOOL_CALLS] [${json}]`,
      (json: string) => `<|python_tag|>${json}<|eom_id|>`,
    ];
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.constantFrom(...envelopes), (args, wrap) => {
        const json = JSON.stringify({ name: 'get_weather', arguments: args });
        const result = extractToolCalls(wrap(json), { tools: TOOLS });
        assert.equal(result.calls.length, 1);
        assert.deepEqual(result.calls[0]?.arguments, parseJson(JSON.stringify(args)) as JsonObject);
      }),
      { numRuns: 300 },
    );
  });

  it('repairJson leaves valid JSON unchanged', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 2), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        assert.deepEqual(repairJson(text), { ok: true, value: parseJson(text), repairs: [] });
      }),
      { numRuns: 300 },
    );
  });

  it('the stream filter is the identity on text without calls, however it is split', () => {
    fc.assert(
      fc.property(anyText, fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        fc.pre(extractDetailed(text, { tools: TOOLS }).removed.length === 0);
        const { pushed, rest } = stream(text, cuts);
        assert.equal(pushed + rest, text);
      }),
      { numRuns: 400 },
    );
  });

  it('the stream filter never shows a call early and shows the rest, whatever the split', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.constantFrom(...corpusTexts), tokenSoup, mutated),
        fc.array(fc.nat(), { maxLength: 8 }),
        (text, cuts) => {
          const { removed } = extractDetailed(text, { tools: TOOLS });
          const whole = stream(text, []);
          const split = stream(text, cuts);
          assert.equal(split.pushed + split.rest, whole.pushed + whole.rest, 'output depends on the split');
          assert.ok(text.startsWith(split.pushed), 'pushes show a prefix of the text');
          for (const span of removed)
            assert.ok(split.pushed.length <= span.start, `showed part of a call at ${span.start}`);
          assert.equal(split.pushed + split.rest, withoutSpans(text, 0, removed));
        },
      ),
      { numRuns: 400 },
    );
  });
});
