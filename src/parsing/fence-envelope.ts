import type { Envelope } from './envelopes/envelope.ts';
import { trimSpan } from './envelopes/envelope.ts';
import type { Fence } from './envelopes/fence.ts';
import { looksPythonic } from './pythonic.ts';

/**
 * What a code fence may hold. ```json and bare ``` hold JSON that may be a
 * call (weak: precision rules apply); ```tool_call / ```tool_code (Gemma) are
 * explicit; sample blocks (```output) are read only to be reported as
 * examples; any other language is code, never a call.
 */

const JSON_INFOS = new Set(['', 'json', 'jsonc', 'json5', 'jsonl']);
const CALL_INFOS = new Set([
  'tool_call',
  'tool_calls',
  'tool_code',
  'tool-call',
  'function_call',
  'functions',
  'tool',
  'tools',
]);
const SAMPLE_INFOS = new Set([
  'example',
  'examples',
  'sample',
  'output',
  'result',
  'response',
  'console',
  'log',
  'text-output',
]);

export function fenceEnvelope(text: string, fence: Fence): Envelope | undefined {
  const explicit = CALL_INFOS.has(fence.info);
  if (!explicit && !JSON_INFOS.has(fence.info) && !SAMPLE_INFOS.has(fence.info)) return undefined;
  const body = trimSpan(text, fence.content);
  if (body.start >= body.end) return undefined;
  const pythonic = explicit && looksPythonic(text, body.start, body.end);
  return {
    family: 'fence',
    span: fence.span,
    strong: explicit,
    payloads: [pythonic ? { kind: 'pythonic', span: body } : { kind: 'json', span: body }],
    unclosed: !fence.closed,
    info: fence.info,
  };
}
