// Tool-call extraction. Baseline, measured in the same run on the same corpus:
// jsonrepair alone (first `{`/`[` to the last `}`/`]`, jsonrepair, JSON.parse,
// read {name, arguments}). Reports exact-match accuracy on the hand-written
// corpus for both, throughput on the corpus, and the parse time of 1 MB
// adversarial inputs, which must stay linear (well under 100 ms per MB).
import { isDeepStrictEqual } from 'node:util';
import { pathToFileURL } from 'node:url';
import { jsonrepair } from 'jsonrepair';
import { isJsonObject } from '../../src/core/json.ts';
import type { JsonObject, JsonValue } from '../../src/core/json.ts';
import { createStreamFilter, extractToolCalls } from '../../src/parsing/index.ts';
import { loadCorpus, runCase, toolName } from '../../test/fixtures/parsing/corpus.ts';
import type { CorpusCase, ExpectedCall } from '../../test/fixtures/parsing/corpus.ts';

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
  ['code fence lines', fill('```\n')],
  ['plain prose', fill('The quick brown fox jumps over the lazy dog. ')],
  ['valid calls, back to back', fill('<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>\n')],
];

/** The naive approach: jsonrepair on the outermost brackets, then the common {name, arguments} shapes. */
function baselineCalls(c: CorpusCase): ExpectedCall[] {
  const declared = new Set(c.tools.map(toolName));
  try {
    if (c.native === true) {
      const value = JSON.parse(jsonrepair(c.text === '' ? '{}' : c.text)) as JsonValue;
      const first = c.tools[0];
      return isJsonObject(value) && first !== undefined ? [{ name: toolName(first), arguments: value }] : [];
    }
    const starts = [c.text.indexOf('{'), c.text.indexOf('[')].filter((i) => i >= 0);
    if (starts.length === 0) return [];
    const start = Math.min(...starts);
    const end = Math.max(c.text.lastIndexOf('}'), c.text.lastIndexOf(']'));
    const value = JSON.parse(jsonrepair(c.text.slice(start, end > start ? end + 1 : undefined))) as JsonValue;
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
  const bytes = corpus.reduce((sum, c) => sum + Buffer.byteLength(c.text), 0);
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

export async function runParsingBench(): Promise<BenchReport> {
  const corpus = loadCorpus();
  const negatives = corpus.filter((c) => c.expect.length === 0);
  const ours = corpus.map((c) => isDeepStrictEqual(runCase(c).calls, c.expect));
  const base = corpus.map((c) => isDeepStrictEqual(baselineCalls(c), c.expect));
  const count = (flags: boolean[]): number => flags.filter(Boolean).length;
  const pct = (n: number): string => `${((100 * n) / corpus.length).toFixed(1)}%`;
  const leaks = (calls: (c: CorpusCase) => ExpectedCall[]): number => negatives.filter((c) => calls(c).length > 0).length;
  const jsonrepairUsed = corpus.filter(
    (c) => c.native !== true && extractToolCalls(c.text, { tools: c.tools }).diagnostics.some((d) => d.repairs?.includes('jsonrepair') === true),
  ).length;
  const oursMbps = throughput(corpus, runCase);
  const baseMbps = throughput(corpus, baselineCalls);
  const lines = [
    `corpus: ${corpus.length} cases (${negatives.length} negatives)`,
    `exact match: toolgate ${count(ours)}/${corpus.length} (${pct(count(ours))}), jsonrepair-only baseline ${count(base)}/${corpus.length} (${pct(count(base))})`,
    `negatives that yield a call: toolgate ${leaks((c) => runCase(c).calls)}/${negatives.length}, baseline ${leaks(baselineCalls)}/${negatives.length}`,
    `jsonrepair stage needed by toolgate in ${jsonrepairUsed} case(s); the rest parse strictly or with its own repairs`,
    `throughput on the corpus: toolgate ${oursMbps.toFixed(1)} MB/s, baseline ${baseMbps.toFixed(1)} MB/s (ratio ${(oursMbps / baseMbps).toFixed(2)})`,
    `1 MB adversarial inputs, median of ${RUNS} (extract | stream filter in 4 KB deltas | baseline):`,
  ];
  const tools = { tools: ['get_weather', 'a'] };
  let slowest = { label: '', msPerMb: 0 };
  for (const [label, text] of ADVERSARIAL) {
    for (let warm = 0; warm < 2; warm += 1) extractToolCalls(text, tools);
    const extract = median(Array.from({ length: RUNS }, () => time(() => extractToolCalls(text, tools))));
    const stream = median(Array.from({ length: RUNS }, () => time(() => streamAll(text))));
    const baseline = median(Array.from({ length: 3 }, () => time(() => baselineCalls({ id: label, family: 'bench', text, tools: tools.tools, expect: [], source: 'bench' }))));
    const perMb = (ms: number): string => `${((ms * MB) / text.length).toFixed(1).padStart(7)} ms/MB`;
    lines.push(`  ${label.padEnd(32)} ${perMb(extract)} | ${perMb(stream)} | ${perMb(baseline)}`);
    if ((extract * MB) / text.length > slowest.msPerMb) slowest = { label, msPerMb: (extract * MB) / text.length };
  }
  lines.push(`slowest adversarial extraction: ${slowest.msPerMb.toFixed(1)} ms/MB (${slowest.label}); the target is well under 100 ms/MB`);
  return { name: 'Tool-call parsing: accuracy, throughput, adversarial inputs', lines };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const report = await runParsingBench();
  console.log(`${report.name}\n  ${report.lines.join('\n  ')}`);
}
