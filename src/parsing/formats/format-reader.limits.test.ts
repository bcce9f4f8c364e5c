import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractToolCalls } from '../extract-tool-calls.ts';
import { BUILTIN_FORMATS } from './builtin-formats.ts';
import type { CallFormat } from './call-format.ts';

/**
 * Adversarial floods of a format's own markers: the reader stays linear (compared across sizes, not against a clock).
 */

function format(id: string): CallFormat {
  const found = BUILTIN_FORMATS.find((f) => f.id === id);
  assert.ok(found);
  return found;
}

const FUNCTION_GEMMA: CallFormat = {
  id: 'function_gemma',
  origin: 'config',
  call: { begin: '<start_function_call>', end: '<end_function_call>' },
  name: { slot: 'marker', before: 'call:' },
  arguments: { grammar: 'object_literal', stringDelimiters: [['<escape>', '<escape>']], unquotedKeys: true },
};

function fill(unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

/** The best of three runs, in ms. */
function time(text: string, f: CallFormat): number {
  let best = Infinity;
  for (let i = 0; i < 3; i += 1) {
    const start = performance.now();
    extractToolCalls(text, { tools: ['get_weather'], formats: [f] });
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

const CASES: readonly [string, CallFormat][] = [
  ['<|tool_call_begin|>', format('kimi')],
  ['<|tool_call_argument_begin|>', format('kimi')],
  ['get_weather<|tool_call_argument_begin|>{', format('kimi')],
  ['[ARGS]', format('mistral')],
  ['[TOOL_CALLS]get_weather[ARGS]{"a": "', format('mistral')],
  ['<tool_call><function=get_weather><parameter=city>', format('qwen3_coder')],
  ['<function=', format('qwen3_coder')],
  ['<start_function_call>call:get_weather{city:<escape>', FUNCTION_GEMMA],
  [
    '<|tool_call_start|>[f(',
    {
      id: 'lfm2',
      origin: 'config',
      section: { begin: '<|tool_call_start|>', end: '<|tool_call_end|>' },
      call: { begin: '' },
      name: { slot: 'call' },
      arguments: { grammar: 'key_value' },
      list: true,
    },
  ],
  ['<minimax:tool_call><invoke name="get_weather"><parameter name="', format('minimax')],
];

describe('format reader limits', () => {
  for (const [unit, f] of CASES) {
    it(`reads a megabyte of ${JSON.stringify(unit)} (${f.id}) in linear time`, () => {
      // Four times the text: linear is about 4x; quadratic would be 16x. Small runs are noisy: a floor
      // of 5 ms; a burst of other work on a shared machine can land in one measurement, so the pair is
      // measured again (at most three times) before it counts. Absolute speed is the benchmark's job.
      const seen: string[] = [];
      let linear = false;
      for (let attempt = 0; attempt < 3 && !linear; attempt += 1) {
        const small = time(fill(unit, 256 * 1024), f);
        const large = time(fill(unit, 1024 * 1024), f);
        seen.push(`256 KB: ${small.toFixed(1)} ms, 1 MB: ${large.toFixed(1)} ms`);
        linear = large < 8 * Math.max(small, 5);
      }
      assert.ok(linear, seen.join('; '));
    });
  }
});
