// Round trip, for every real template the analysis reads: the text the
// template renders for random calls, parsed with the derived format, gives
// the same calls back. This is the issue's "rendering → derived format →
// parse" check; a template whose format the reader cannot yet follow fails
// here with the rendered text in the message.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { loadTemplates } from '../../../test/fixtures/templates/templates.ts';
import { extractToolCalls } from '../extract-tool-calls.ts';
import type { ToolRef } from '../types.ts';
import { deriveFormat } from './derive-format.ts';
import { renderAssistantCalls } from './render-assistant-calls.ts';

const TOOLS: ToolRef[] = [
  {
    name: 'get_weather',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' }, options: { type: 'object' } },
    },
  },
  {
    name: 'search_docs',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
        strict: { type: 'boolean' },
      },
    },
  },
  { name: 'list_files', inputSchema: { type: 'object', properties: {} } },
];

/** Text with what breaks naive readers: quotes, braces, tags, unicode, newlines inside. */
const text = fc
  .array(
    fc.constantFrom(
      'a',
      'Z',
      ' ',
      '"',
      "'",
      '{',
      '}',
      '<',
      '>',
      ',',
      ':',
      '=',
      '\\',
      '\n',
      'é',
      'ü',
      '日本',
      '🙂',
      '$',
      '9',
    ),
    { minLength: 1, maxLength: 14 },
  )
  .map((parts) => `v${parts.join('')}x`);
const nested = fc.dictionary(
  fc.constantFrom('unit', 'lang', 'deep'),
  fc.oneof(text, fc.integer({ min: -99, max: 999 }), fc.dictionary(fc.constantFrom('k', 'n'), text, { maxKeys: 2 })),
  { maxKeys: 3 },
);

const call = fc.oneof(
  fc.record({
    name: fc.constant('get_weather'),
    arguments: fc.record(
      { city: text, days: fc.integer({ min: 0, max: 30 }), options: nested },
      { requiredKeys: ['city'] },
    ),
  }),
  fc.record({
    name: fc.constant('search_docs'),
    arguments: fc.record(
      { query: text, tags: fc.array(text, { maxLength: 3 }), strict: fc.boolean() },
      { requiredKeys: ['query'] },
    ),
  }),
  fc.record({ name: fc.constant('list_files'), arguments: fc.constant({}) }),
);

const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/**
 * Templates that write string values raw inside '…' (LFM2) make some values
 * ambiguous: `city='a', days='b'` reads as one value or two. The reader takes
 * a quote as the end only before what can follow a value; values holding such
 * a quote are left out of the property (the reader's own tests cover it).
 */
const RAW_QUOTED: Record<string, RegExp> = { 'LFM2.5-8B-A1B.jinja': /'\s*[,)\]}:]/ };

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

describe('template round trip: render → derived format → parse', () => {
  for (const { file, source } of loadTemplates()) {
    const derived = deriveFormat(source, { id: file });
    if (!derived.ok) continue;
    const format = derived.format;
    it(file, () => {
      fc.assert(
        fc.property(fc.array(call, { minLength: 1, maxLength: 3 }), (calls) => {
          const ambiguous = RAW_QUOTED[file];
          if (ambiguous !== undefined && strings(calls.map((c) => c.arguments)).some((v) => ambiguous.test(v))) return;
          const rendered = renderAssistantCalls(source, calls);
          // Templates that render one call per turn (Llama 3.x) raise on more.
          if (!rendered.ok && calls.length > 1 && /single tool-call|renders only 1 of/i.test(rendered.reason)) return;
          assert.ok(rendered.ok, rendered.ok ? '' : rendered.reason);
          const result = extractToolCalls(rendered.text, { tools: TOOLS, formats: [format] });
          const got = result.calls.map((c) => ({ name: c.name, arguments: c.arguments }));
          assert.deepEqual(
            got,
            plain(calls),
            `rendered: ${JSON.stringify(rendered.text)}\ndiagnostics: ${JSON.stringify(result.diagnostics)}`,
          );
        }),
        { numRuns: 60 },
      );
    });
  }
});
