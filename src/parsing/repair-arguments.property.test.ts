// Property tests for repairArguments: it never throws; valid arguments come
// back unchanged with no repair; an object broken the way models and servers
// break it (single quotes, doubled braces, literal \n between tokens, double
// encoding, unescaped inner quotes) reads back to the same object; and the
// reading work grows linearly with the text, counted, not timed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { JsonObject } from '../core/json.ts';
import { parseLenient } from './lenient-json.ts';
import { readArgumentObjects, repairArguments } from './repair-arguments.ts';
import type { RepairKind } from './types.ts';
import { parseJson } from '../core/parse-json.ts';

const PIECES = [
  '{',
  '}',
  '[',
  ']',
  '"',
  "'",
  '"""',
  ':',
  ',',
  ' ',
  '\n',
  '\\n',
  '\\',
  '{{',
  '}}',
  'True',
  'None',
  '1',
  '-',
  'a',
  '"k": ',
  '"v"',
  '```json\n',
  '```',
  '/*',
  '//',
];
const jsonish = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((parts) => parts.join(''));
const anyText = fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 }), jsonish);

/** Strings without quotes or braces: swapping quotes or braces in the JSON text then changes only its syntax. */
const plainString = fc.string({ unit: fc.constantFrom(...'abc xyz019_-:,[]\\\n\t/é'), maxLength: 12 });
const plainValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    plainString,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(plainString, tie('value'), { maxKeys: 4 }),
  ),
}));
const plainObject = fc.dictionary(plainString, plainValue.value, { maxKeys: 5 }).map((value) => value as JsonObject);

/** What a repair undoes, applied to valid JSON text: the kind it must then record when the text changed. */
const BREAKS: { kind: RepairKind; break: (value: JsonObject) => string }[] = [
  { kind: 'single_quoted_strings', break: (value) => JSON.stringify(value).replaceAll('"', "'") },
  { kind: 'collapsed_doubled_braces', break: (value) => `{${JSON.stringify(value)}}` },
  { kind: 'collapsed_doubled_braces', break: (value) => `{{${JSON.stringify(value)}}}` },
  { kind: 'literal_escape_sequences', break: (value) => JSON.stringify(value, null, 2).replaceAll('\n', '\\n') },
  { kind: 'literal_escape_sequences', break: (value) => JSON.stringify(value, null, '\t').replaceAll('\n', '\\r\\n') },
  { kind: 'decoded_double_encoding', break: (value) => JSON.stringify(JSON.stringify(value)) },
];

/** A String whose charAt counts its calls: every loop of the reader reads the text through it. */
class CountingText extends String {
  reads = 0;
  override charAt(index: number): string {
    this.reads += 1;
    return super.charAt(index);
  }
}

/** Texts that make a careless quote look-ahead or brace reader go quadratic, `n` units long. */
const PATHOLOGICAL: Record<string, (n: number) => string> = {
  commaQuotes: (n) => `{"a": "${'", "'.repeat(n)}`,
  commaWords: (n) => `{"a": "${'x", "x'.repeat(n)}"}`,
  spacedQuotes: (n) => `{"a": "${'" '.repeat(n)}`,
  arrayItems: (n) => `["${'", x'.repeat(n)}`,
  missingCommas: (n) => `{"a": "${'", "b" "'.repeat(n)}`,
  literalBreaks: (n) => `{"a": "${'"\\n'.repeat(n)}`,
  longKeys: (n) => `{"a": "x", ${'"k'.repeat(n)}`,
  spaces: (n) => `{"a": "x"${' '.repeat(n)},${' '.repeat(n)}"b`,
  braces: (n) => '{'.repeat(n),
  tripleQuotes: (n) => `{"a": """${'""x'.repeat(n)}`,
  singleQuotes: (n) => `{'a': '${"', '".repeat(n)}`,
  doubled: (n) => `{{"a": ${'{{"a": '.repeat(n)}`,
};

describe('repairArguments properties', () => {
  it('never throws, and always answers with an object or a message and a position', () => {
    fc.assert(
      fc.property(anyText, fc.boolean(), (raw, truncated) => {
        const result = repairArguments(raw, { truncated });
        if (result.ok) assert.equal(typeof result.arguments, 'object');
        else assert.ok(result.message.length > 0 && Number.isInteger(result.position) && result.position >= 0);
        const objects = readArgumentObjects(raw, { truncated });
        assert.equal(objects.ok, result.ok || /in a row/.test(result.message));
      }),
      { numRuns: 1_000 },
    );
  });

  it('returns valid JSON objects unchanged, with no repair, however they are laid out', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.constantFrom(undefined, 2, '\t'), (value, indent) => {
        const raw = JSON.stringify(value, null, indent);
        assert.deepEqual(repairArguments(raw), { ok: true, arguments: parseJson(raw), repairs: [] });
      }),
      { numRuns: 500 },
    );
  });

  it("reads an object broken by one of the repairs' inverses back to the same object, and records the repair", () => {
    fc.assert(
      fc.property(plainObject, fc.constantFrom(...BREAKS), (value, broken) => {
        const expected = parseJson(JSON.stringify(value)) as JsonObject;
        const raw = broken.break(value);
        const result = repairArguments(raw);
        assert.ok(result.ok, `${raw}: ${result.ok ? '' : result.message}`);
        assert.deepEqual(result.arguments, expected, raw);
        if (raw !== JSON.stringify(value) && raw !== JSON.stringify(value, null, 2))
          assert.ok(result.repairs.includes(broken.kind), `${raw}: ${result.repairs.join(',')}`);
      }),
      { numRuns: 600 },
    );
  });

  it('keeps quotes a model left unescaped inside prose values', () => {
    const word = fc.string({ unit: fc.constantFrom(...'abcdefxyz'), minLength: 1, maxLength: 6 });
    const prose = fc
      .array(fc.tuple(word, fc.boolean()), { minLength: 1, maxLength: 6 })
      .map((words) => words.map(([w, quoted]) => (quoted ? `"${w}"` : w)).join(' '));
    fc.assert(
      fc.property(fc.dictionary(word, prose, { minKeys: 1, maxKeys: 4 }), (value) => {
        const raw = `{${Object.entries(value)
          .map(([k, v]) => `"${k}": "${v}"`)
          .join(', ')}}`;
        const result = repairArguments(raw);
        assert.ok(result.ok, raw);
        assert.deepEqual(result.arguments, { ...value }, raw);
      }),
      { numRuns: 400 },
    );
  });

  it('reads each pathological text with a bounded number of character reads per character', () => {
    for (const [name, make] of Object.entries(PATHOLOGICAL)) {
      for (const n of [1_000, 20_000]) {
        for (const allowCloseAtEnd of [true, false]) {
          const text = new CountingText(make(n));
          parseLenient(text as unknown as string, { allowCloseAtEnd, extended: true });
          // A quadratic reader would read each character thousands of times here.
          assert.ok(
            text.reads <= 10 * text.length + 10,
            `${name} (${n}): ${text.reads} reads for ${text.length} characters`,
          );
        }
      }
    }
  });

  it('returns on 200 KB pathological arguments, every stage included', () => {
    for (const [name, make] of Object.entries(PATHOLOGICAL)) {
      const unit = make(1).length;
      const raw = make(Math.ceil(200_000 / unit));
      const result = repairArguments(raw);
      assert.equal(typeof result.ok, 'boolean', name);
      assert.equal(typeof readArgumentObjects(raw, { truncated: true }).ok, 'boolean', name);
    }
  });
});
