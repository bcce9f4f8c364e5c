// Tool-call extraction. Baseline, measured in the same run on the same corpus:
// jsonrepair alone (first `{`/`[` to the last `}`/`]`, jsonrepair, JSON.parse,
// read {name, arguments}). Reports exact-match accuracy on the corpus for
// both, overall, per model family, and on the cases collected from public
// sources apart; throughput on the corpus, and the parse time of 1 MB
// adversarial inputs, which must stay linear (well under 100 ms per MB). The
// fresh holdout (fresh-*.jsonl) is reported apart, and both sets are measured
// with and without the formats derived from the models' chat templates
// (template-accuracy.ts), with the misses that carry no diagnostic.
import { isDeepStrictEqual } from 'node:util';
import { pathToFileURL } from 'node:url';
import { jsonrepair } from 'jsonrepair';
import { isJsonObject } from '../../src/core/json.ts';
import type { JsonObject, JsonValue } from '../../src/core/json.ts';
import { createStreamFilter, extractFromMessage, extractToolCalls } from '../../src/parsing/index.ts';
import { loadCorpus, runCase, toolName } from '../../test/fixtures/parsing/corpus.ts';
import type { CorpusCase, ExpectedCall } from '../../test/fixtures/parsing/corpus.ts';
import {
  deriveCorpusFormats,
  templateAccuracyLines,
  templateAdversarialInputs,
  templateFailureLines,
} from './template-accuracy.ts';

export interface BenchReport {
  name: string;
  lines: string[];
}

const MB = 1 << 20;
const RUNS = 5;
const MIN_THROUGHPUT_MS = 400;

function fill(unit: string): string {
  return unit.repeat(Math.ceil(MB / unit.length)).slice(0, MB);
}

/** Adversarial 1 MB inputs: each one defeats a naive parser (quadratic scans, deep recursion, greedy regexes). */
const ADVERSARIAL: [string, string][] = [
  ['deep nesting [[[…]]]', '['.repeat(MB / 2) + ']'.repeat(MB / 2)],
  ['deep objects {"a":{"a":…', fill('{"a":')],
  ['unbalanced braces {{{{', fill('{')],
  ['prose with braces {b} [c]', fill('a {b} [c] d ')],
  ['one long open string', `{"name": "x", "arguments": {"text": "${fill('lorem ipsum ')}`],
  ['a megabyte of quotes', fill('"')],
  ['many <tool_call> openings', fill('<tool_call>')],
  ['many <tool_call>{ openings', fill('<tool_call>{')],
  ['many [TOOL_CALLS] markers', fill('[TOOL_CALLS]')],
  ['many <function=…> tags', fill('<function=a>')],
  ['unclosed Qwen3-Coder params', fill('<tool_call><function=a><parameter=b>')],
  ['DeepSeek begin tokens', fill('<｜tool▁call▁begin｜>')],
  ['DeepSeek DSML invokes', fill('<｜DSML｜invoke name="a"><｜DSML｜parameter name="b" string="false">')],
  ['Kimi call tokens', fill('<|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{')],
  ['Harmony headers', fill('<|start|>assistant<|channel|>commentary to=functions.a <|constrain|>json<|message|>')],
  ['Mistral name[ARGS] lines', fill('a[ARGS]{"b": \n')],
  ['GLM arg keys', fill('<arg_key>b</arg_key><arg_value>')],
  ['MiniMax text calls', fill('[TOOL_CALL] {tool => "a", args => {--b "')],
  ['MiniMax invokes', fill('<invoke name="a"><parameter name="b">')],
  ['names at line starts', fill('get_weather\n')],
  ['code fence lines', fill('```\n')],
  ['plain prose', fill('The quick brown fox jumps over the lazy dog. ')],
  [
    'valid calls, back to back',
    fill('<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>\n'),
  ],
];

/** The naive approach: jsonrepair on the outermost brackets, then the common {name, arguments} shapes. */
function baselineCalls(c: CorpusCase): ExpectedCall[] {
  const declared = new Set(c.tools.map(toolName));
  const text = c.text ?? '';
  try {
    if (c.native === true) {
      const value = JSON.parse(jsonrepair(text === '' ? '{}' : text)) as JsonValue;
      const first = c.tools[0];
      return isJsonObject(value) && first !== undefined ? [{ name: toolName(first), arguments: value }] : [];
    }
    if (c.toolCalls !== undefined && c.toolCalls.length > 0) {
      // Native calls: names as sent, each arguments string through jsonrepair.
      return c.toolCalls.flatMap((call) => {
        const value = JSON.parse(jsonrepair(call.arguments === '' ? '{}' : call.arguments)) as JsonValue;
        return declared.has(call.name) && isJsonObject(value) ? [{ name: call.name, arguments: value }] : [];
      });
    }
    const starts = [text.indexOf('{'), text.indexOf('[')].filter((i) => i >= 0);
    if (starts.length === 0) return [];
    const start = Math.min(...starts);
    const end = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
    const value = JSON.parse(jsonrepair(text.slice(start, end > start ? end + 1 : undefined))) as JsonValue;
    return shapes(value).filter((call) => declared.has(call.name));
  } catch {
    return [];
  }
}

function shapes(value: JsonValue): ExpectedCall[] {
  if (Array.isArray(value)) return value.flatMap(shapes);
  if (!isJsonObject(value)) return [];
  for (const key of ['tool_calls', 'actions']) {
    const list = value[key];
    if (Array.isArray(list)) return list.flatMap(shapes);
  }
  const inner = value['function'];
  const fn: JsonObject = isJsonObject(inner) ? inner : value;
  const name = fn['name'] ?? fn['tool_name'] ?? fn['action'];
  let args: JsonValue = fn['arguments'] ?? fn['parameters'] ?? {};
  if (typeof args === 'string') args = JSON.parse(jsonrepair(args)) as JsonValue;
  return typeof name === 'string' && isJsonObject(args) ? [{ name, arguments: args as JsonObject }] : [];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function time(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

/** MB/s of `fn` over the corpus, repeated until the measurement is long enough to mean something. */
function throughput(corpus: readonly CorpusCase[], fn: (c: CorpusCase) => unknown): number {
  const bytes = corpus.reduce(
    (sum, c) =>
      sum +
      Buffer.byteLength(c.text ?? '') +
      Buffer.byteLength(c.reasoning ?? '') +
      (c.toolCalls ?? []).reduce((n, t) => n + Buffer.byteLength(t.arguments), 0),
    0,
  );
  for (const c of corpus) fn(c);
  let rounds = 0;
  const start = performance.now();
  while (performance.now() - start < MIN_THROUGHPUT_MS) {
    for (const c of corpus) fn(c);
    rounds += 1;
  }
  return (bytes * rounds) / MB / ((performance.now() - start) / 1000);
}

function streamAll(text: string): void {
  const filter = createStreamFilter({ tools: ['get_weather'] });
  for (let i = 0; i < text.length; i += 4096) filter.push(text.slice(i, i + 4096));
  filter.end();
}

/** Exact-match accuracy per family, and on the cases collected from public sources (those with an origin). */
function byFamily(corpus: readonly CorpusCase[], ours: readonly boolean[], base: readonly boolean[]): string[] {
  const groups = new Map<string, number[]>();
  corpus.forEach((c, i) => {
    const list = groups.get(c.family) ?? [];
    list.push(i);
    groups.set(c.family, list);
  });
  const row = (label: string, indexes: readonly number[]): string => {
    const hit = (flags: readonly boolean[]): number => indexes.filter((i) => flags[i] === true).length;
    return (
      `  ${label.padEnd(16)} ${String(indexes.length).padStart(4)} cases  toolgate ` +
      (`${((100 * hit(ours)) / indexes.length).toFixed(0).padStart(3)}%  ` +
        `baseline ${((100 * hit(base)) / indexes.length).toFixed(0).padStart(3)}%`)
    );
  };
  const collected = corpus.flatMap((c, i) => (c.origin === undefined ? [] : [i]));
  return [
    'exact match per family:',
    ...[...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([family, indexes]) => row(family, indexes)),
    ...(collected.length === 0 ? [] : [row('(public sources)', collected)]),
  ];
}

export async function runParsingBench(): Promise<BenchReport> {
  const corpus = loadCorpus();
  const negatives = corpus.filter((c) => c.expect.length === 0);
  const ours = corpus.map((c) => isDeepStrictEqual(runCase(c).calls, c.expect));
  const base = corpus.map((c) => isDeepStrictEqual(baselineCalls(c), c.expect));
  const count = (flags: boolean[]): number => flags.filter(Boolean).length;
  const pct = (n: number): string => `${((100 * n) / corpus.length).toFixed(1)}%`;
  const leaks = (calls: (c: CorpusCase) => ExpectedCall[]): number =>
    negatives.filter((c) => calls(c).length > 0).length;
  const jsonrepairUsed = corpus.filter(
    (c) =>
      c.native !== true &&
      extractToolCalls(c.text ?? '', { tools: c.tools }).diagnostics.some(
        (d) => d.repairs?.includes('jsonrepair') === true,
      ),
  ).length;
  const fresh = loadCorpus({ fresh: true });
  const freshNegatives = fresh.filter((c) => c.expect.length === 0);
  const freshOurs = fresh.map((c) => isDeepStrictEqual(runCase(c).calls, c.expect));
  const freshBase = fresh.map((c) => isDeepStrictEqual(baselineCalls(c), c.expect));
  const freshLeaks = freshNegatives.filter((c) => runCase(c).calls.length > 0).length;
  const formats = deriveCorpusFormats([...corpus, ...fresh]);
  const oursMbps = throughput(corpus, runCase);
  const baseMbps = throughput(corpus, baselineCalls);
  const lines = [
    `corpus: ${corpus.length} cases (${negatives.length} negatives)`,
    `exact match: toolgate ${count(ours)}/${corpus.length} (${pct(count(ours))}), ` +
      `jsonrepair-only baseline ${count(base)}/${corpus.length} (${pct(count(base))})`,
    `negatives that yield a call: toolgate ${leaks((c) => runCase(c).calls)}/${negatives.length}, ` +
      `baseline ${leaks(baselineCalls)}/${negatives.length}`,
    ...byFamily(corpus, ours, base),
    `jsonrepair stage needed by toolgate in ${jsonrepairUsed} case(s); the rest parse strictly or with its own repairs`,
    `fresh holdout exact match: toolgate ${count(freshOurs)}/${fresh.length}, jsonrepair-only baseline ` +
      (`${count(freshBase)}/${fresh.length}; negatives that yield ` +
        `a call: toolgate ${freshLeaks}/${freshNegatives.length}`),
    ...templateAccuracyLines('corpus with templates', corpus, formats),
    ...templateAccuracyLines('fresh holdout with templates', fresh, formats),
    ...templateFailureLines(formats),
    `throughput on the corpus: toolgate ${oursMbps.toFixed(1)} MB/s, baseline ` +
      `${baseMbps.toFixed(1)} MB/s (ratio ${(oursMbps / baseMbps).toFixed(2)})`,
    `1 MB adversarial inputs, median of ${RUNS} (extract | stream filter in 4 KB deltas | baseline):`,
  ];
  const tools = { tools: ['get_weather', 'a'] };
  let slowest = { label: '', msPerMb: 0 };
  for (const [label, text] of ADVERSARIAL) {
    for (let warm = 0; warm < 2; warm += 1) extractToolCalls(text, tools);
    const extract = median(Array.from({ length: RUNS }, () => time(() => extractToolCalls(text, tools))));
    const stream = median(Array.from({ length: RUNS }, () => time(() => streamAll(text))));
    const baseline = median(
      Array.from({ length: 3 }, () =>
        time(() =>
          baselineCalls({ id: label, family: 'bench', text, tools: tools.tools, expect: [], source: 'bench' }),
        ),
      ),
    );
    const perMb = (ms: number): string => `${((ms * MB) / text.length).toFixed(1).padStart(7)} ms/MB`;
    lines.push(`  ${label.padEnd(32)} ${perMb(extract)} | ${perMb(stream)} | ${perMb(baseline)}`);
    if ((extract * MB) / text.length > slowest.msPerMb) slowest = { label, msPerMb: (extract * MB) / text.length };
  }
  const templated = templateAdversarialInputs(formats, fill);
  lines.push(
    templated.length === 0
      ? '  template-derived format markers: n/a (no format derived)'
      : '  template-derived format markers (extract with that format | without):',
  );
  for (const { label, text, format } of templated) {
    const withFormat = median(
      Array.from({ length: RUNS }, () =>
        time(() => extractFromMessage({ text, tools: tools.tools, formats: [format] })),
      ),
    );
    const without = median(Array.from({ length: RUNS }, () => time(() => extractToolCalls(text, tools))));
    const perMb = (ms: number): string => `${((ms * MB) / text.length).toFixed(1).padStart(7)} ms/MB`;
    lines.push(`  ${label.padEnd(32)} ${perMb(withFormat)} | ${perMb(without)}`);
    if ((withFormat * MB) / text.length > slowest.msPerMb)
      slowest = { label, msPerMb: (withFormat * MB) / text.length };
  }
  lines.push(
    `slowest adversarial extraction: ${slowest.msPerMb.toFixed(1)} ` +
      `ms/MB (${slowest.label}); the target is well under 100 ms/MB`,
  );
  return { name: 'Tool-call parsing: accuracy, throughput, adversarial inputs', lines };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const report = await runParsingBench();
  console.log(`${report.name}\n  ${report.lines.join('\n  ')}`);
}
