// Accuracy with and without the model's chat template. A case that names its
// template (test/fixtures/templates/<file>) is parsed a second time with the
// format derived from that template (deriveFormat) passed in `formats`; a case
// without one, or whose template is missing or cannot be analysed, is parsed
// the same way in both columns.
import { existsSync, readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import { CALL_FAILURE_CODES, extractFromMessage } from '../../src/parsing/index.ts';
import type { ExtractionResult } from '../../src/parsing/index.ts';
import type { CallFormat } from '../../src/parsing/formats/call-format.ts';
import { deriveFormat } from '../../src/parsing/templates/derive-format.ts';
import { messageOf } from '../../test/fixtures/parsing/corpus.ts';
import type { CorpusCase } from '../../test/fixtures/parsing/corpus.ts';

const TEMPLATES_DIR = fileURLToPath(new URL('../../test/fixtures/templates/', import.meta.url));

/** What deriving the corpus's templates gave: the format per template file, and why the others have none. */
export interface TemplateFormats {
  formats: Map<string, CallFormat>;
  failures: Map<string, string>;
}

export function deriveCorpusFormats(cases: readonly CorpusCase[]): TemplateFormats {
  const result: TemplateFormats = { formats: new Map(), failures: new Map() };
  for (const file of new Set(cases.flatMap((c) => (c.template === undefined ? [] : [c.template])))) {
    const path = TEMPLATES_DIR + file;
    if (!existsSync(path)) {
      result.failures.set(file, 'no such fixture');
      continue;
    }
    const derived = deriveFormat(readFileSync(path, 'utf8'), { id: file.replace(/\.jinja$/, '') });
    if (derived.ok) result.formats.set(file, derived.format);
    else result.failures.set(file, derived.reason);
  }
  return result;
}

/** The message of a case, with its template's format when it has one. */
export function withTemplate(c: CorpusCase, formats: TemplateFormats): ExtractionResult {
  const format = c.template === undefined ? undefined : formats.formats.get(c.template);
  return extractFromMessage(format === undefined ? messageOf(c) : { ...messageOf(c), formats: [format] });
}

interface Outcome {
  exact: boolean;
  /** Not exact and no call-failure diagnostic: the retry loop has nothing to tell the model. */
  silent: boolean;
  /** A call came out, but not the expected ones. */
  wrong: boolean;
  /** A negative turned into a call. */
  leak: boolean;
}

function outcome(c: CorpusCase, result: ExtractionResult): Outcome {
  const calls = result.calls.map((call) => ({ name: call.name, arguments: call.arguments }));
  const exact = isDeepStrictEqual(calls, c.expect);
  const failed = result.diagnostics.some((d) => CALL_FAILURE_CODES.includes(d.code));
  return {
    exact,
    silent: !exact && !failed,
    wrong: !exact && calls.length > 0 && c.expect.length > 0,
    leak: c.expect.length === 0 && calls.length > 0,
  };
}

function pct(n: number, of: number): string {
  return of === 0 ? '  n/a' : `${((100 * n) / of).toFixed(0).padStart(4)}%`;
}

/**
 * Rows for one set of cases: exact match without and with templates, overall and per family, and the failure counts.
 */
export function templateAccuracyLines(label: string, cases: readonly CorpusCase[], formats: TemplateFormats): string[] {
  const without = cases.map((c) => outcome(c, extractFromMessage(messageOf(c))));
  const withT = cases.map((c) => outcome(c, withTemplate(c, formats)));
  const count = (list: readonly Outcome[], key: keyof Outcome, indexes?: readonly number[]): string => {
    const picked =
      indexes === undefined ? list : indexes.map((i) => list[i]).filter((o): o is Outcome => o !== undefined);
    return String(picked.filter((o) => o[key]).length);
  };
  const exactPct = (list: readonly Outcome[], indexes: readonly number[]): string =>
    pct(indexes.filter((i) => list[i]?.exact === true).length, indexes.length);
  const templated = cases.filter((c) => c.template !== undefined);
  const derived = templated.filter((c) => c.template !== undefined && formats.formats.has(c.template)).length;
  const families = new Map<string, number[]>();
  cases.forEach((c, i) => families.set(c.family, [...(families.get(c.family) ?? []), i]));
  const all = cases.map((_, i) => i);
  const positives = cases.flatMap((c, i) => (c.expect.length > 0 ? [i] : []));
  const negatives = cases.length - positives.length;
  return [
    `${label}: ${cases.length} cases (${negatives} negatives), ${templated.length} with a template, ${derived} derived`,
    `  exact match: without templates ${exactPct(without, all)}, with templates ${exactPct(withT, all)}`,
    `  misses without a diagnostic: without ${count(without, 'silent', positives)}/${positives.length}, ` +
      `with ${count(withT, 'silent', positives)}`,
    `  wrong calls (a call, not the expected one): without ${count(without, 'wrong')}, with ${count(withT, 'wrong')}`,
    `  non-calls turned into calls: without ${count(without, 'leak')}/${negatives}, with ${count(withT, 'leak')}`,
    '  per family (cases, without | with templates):',
    ...[...families.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([family, indexes]) =>
          `    ${family.padEnd(16)} ${String(indexes.length).padStart(4)} ` +
          ` ${exactPct(without, indexes)} | ${exactPct(withT, indexes)}`,
      ),
  ];
}

/** Why some templates gave no format, one line each. */
export function templateFailureLines(formats: TemplateFormats): string[] {
  return [...formats.failures.entries()].map(([file, reason]) => `  no format from ${file}: ${reason}`);
}

/** The text that opens one argument in a format's grammar (where a reader must wait for its end). */
function argumentOpener(format: CallFormat): string {
  const args = format.arguments;
  switch (args.grammar) {
    case 'json':
      return '{"b": "';
    case 'object_literal':
      return `{b:${args.stringDelimiters[0]?.[0] ?? '"'}`;
    case 'key_value':
      return '(b="';
    case 'xml': {
      const p = args.parameters;
      if (p.form === 'attribute') return `<${p.tag} ${p.attribute}="b">`;
      if (p.form === 'equals') return `<${p.tag}=b>`;
      if (p.form === 'child') return `<${p.keyTag}>b</${p.keyTag}><${p.valueTag}>`;
      return '<b>';
    }
  }
}

/** One call's head in a format: its opener and name, ready for arguments. */
function callHead(format: CallFormat, name: string): string {
  const slot = format.name;
  const named =
    slot.slot === 'marker' ? `${slot.before ?? ''}${name}${slot.after ?? ''}` : slot.slot === 'call' ? name : '';
  return `${format.call.begin}${named}`;
}

/**
 * Adversarial 1 MB inputs made of one template-derived format's markers: openers alone, and heads of calls whose
 * arguments never close.
 */
export function templateAdversarialInputs(
  formats: TemplateFormats,
  fill: (unit: string) => string,
): { label: string; text: string; format: CallFormat }[] {
  // The first format whose call has an opener of its own: a megabyte of nothing is no test.
  const [file, format] = [...formats.formats.entries()].find(([, f]) => f.call.begin !== '') ?? [];
  if (file === undefined || format === undefined) return [];
  const section = format.section?.begin ?? '';
  return [
    { label: `${file}: openers`, text: fill(`${section}${format.call.begin}`), format },
    { label: `${file}: unclosed calls`, text: fill(`${callHead(format, 'a')}${argumentOpener(format)}`), format },
    { label: `${file}: section + heads`, text: section + fill(callHead(format, 'get_weather')), format },
  ];
}
