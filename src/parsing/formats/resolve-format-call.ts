import type { Payload } from '../envelopes/envelope.ts';
import { charge, excerpt } from '../extract-context.ts';
import type { Scope } from '../extract-context.ts';
import { parseEnvelopedPythonicCalls } from '../pythonic.ts';
import { resolveIntent } from '../resolve-intent.ts';
import type { Span } from '../types.ts';
import type { CallFormat } from './call-format.ts';
import { quoted } from './find-format-calls.ts';
import { describeGrammar, sniffArguments } from './read-arguments.ts';
import { callsInValue, readBodyValue, schemaOf, sniffCall } from './sniff-call.ts';
import type { SniffedCall } from './sniff-call.ts';

/**
 * Turns a call found by a format given as data into calls or diagnostics:
 * the arguments are read in the format's grammar, then in every other one;
 * a body that reads in no grammar is a malformed_call saying what was
 * expected where; arguments cut at the end of the text are `truncated`.
 * Names, unknown tools and limits go through resolveIntent like every call.
 */

export type FormatPayload = Extract<Payload, { kind: 'format' }>;

function truncated({ ctx, outcome }: Scope, span: Span, name: string | undefined): void {
  const why = ctx.truncated ? 'the reply hit its length limit' : 'the reply ended in the middle of it';
  outcome.diagnostics.push({
    code: 'truncated',
    message:
      `${name === undefined ? 'A tool call' : `The call to "${name}"`} ` +
      `was cut off before its arguments were complete (${why}).`,
    span,
    ...(name === undefined ? {} : { name }),
  });
}

function malformed(
  { ctx, outcome }: Scope,
  payload: FormatPayload,
  what: { expected: string; position: number; why: string; name?: string },
): void {
  const who =
    what.name === undefined ? `A ${payload.format.id} call` : `The call to "${what.name}" (${payload.format.id})`;
  outcome.diagnostics.push({
    code: 'malformed_call',
    message:
      `${who} could not be read: expected ${what.expected} (at position ` +
      `${what.position}: ${what.why}). Near: ${excerpt(ctx.text, what.position)}`,
    span: payload.span,
    position: what.position,
    ...(what.name === undefined ? {} : { name: what.name }),
  });
}

function emit(scope: Scope, span: Span, calls: readonly SniffedCall[]): void {
  for (const call of calls)
    resolveIntent(
      scope,
      { name: call.name, args: call.args, explicit: true, echo: false },
      { strong: true, span, repairs: call.repairs },
    );
}

/** What a body in the format's name slot looks like, in words. */
function describeBody(format: CallFormat): string {
  const slot = format.name;
  const args = describeGrammar(format.arguments);
  if (slot.slot === 'field')
    return (
      `${format.list === true ? 'a list of objects' : 'an object'} {"${slot.nameKey}": ` +
      `"<tool>", "${slot.argumentsKey}": {…}} with the arguments ${args}`
    );
  if (slot.slot === 'key')
    return `${format.list === true ? 'a list of objects' : 'an object'} {"<tool>": {…}} with the arguments ${args}`;
  if (slot.slot === 'marker')
    return (
      `${slot.before ?? ''}<tool>${slot.after ?? ''}${slot.tagEnd === undefined ? '' : `…${slot.tagEnd}`} ` +
      `then the arguments ${args}`
    );
  return `${format.list === true ? 'a list of calls' : 'a call'} <tool>(…) with the arguments ${args}`;
}

/** Name-in-body slots (field, key, call): the whole args span is the call(s). */
function bodyCalls(scope: Scope, payload: FormatPayload): SniffedCall[] {
  const { ctx } = scope;
  const { format, args } = payload;
  const delimiters = format.arguments.grammar === 'object_literal' ? format.arguments.stringDelimiters : undefined;
  // A marker format's call whose body skipped the name markers: only a whole call to a declared tool is taken.
  if (format.name.slot === 'marker') return sniffCall(ctx.text, args, { tools: ctx.tools, grammar: format.arguments });
  if (format.name.slot === 'call') {
    const parsed = parseEnvelopedPythonicCalls(ctx.text, args.start, args.end);
    if (parsed.ok) return parsed.calls.map((call) => ({ name: call.name, args: call.arguments, repairs: [] }));
  } else {
    const read = readBodyValue(ctx.text, args, delimiters);
    if (read !== undefined) {
      const calls = callsInValue(read.value, format.name);
      if (calls.length > 0) {
        // Arguments written as text in the body's own grammar (`"arguments": "<parameter=…>"`) are read as such.
        return calls.map((call) => ({ ...call, repairs: read.repairs }));
      }
    }
  }
  return sniffCall(ctx.text, args, { tools: ctx.tools, grammar: format.arguments });
}

const HEAD_CHARS = 400;

/** The name a cut body was about (`"name": "x"`, `x(`, `{"x":`), when the head of it says. */
function nameInCutBody(text: string, payload: FormatPayload): string | undefined {
  const head = text.slice(payload.args.start, Math.min(payload.args.end, payload.args.start + HEAD_CHARS));
  const slot = payload.format.name;
  if (slot.slot === 'field') {
    const key = slot.nameKey.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`["']?${key}["']?\\s*:\\s*["']([^"'\\s]{1,128})["']`).exec(head)?.[1];
  }
  if (slot.slot === 'call') return /^\[?\s*([A-Za-z_][\w.]*)\s*\(/.exec(head)?.[1];
  return /^\[?\s*\{\s*["']([^"']{1,128})["']\s*:/.exec(head)?.[1];
}

export function resolveFormatCall(scope: Scope, payload: FormatPayload): void {
  const { ctx } = scope;
  const { format, args, name } = payload;
  charge(ctx, payload.span.end - payload.span.start);
  if (payload.cut) {
    truncated(scope, payload.span, name ?? nameInCutBody(ctx.text, payload));
    return;
  }
  if (name === undefined) {
    const calls = bodyCalls(scope, payload);
    if (calls.length > 0) emit(scope, payload.span, calls);
    else if (args.end === ctx.text.length && ctx.text.slice(args.start, args.end).trim() === '')
      truncated(scope, payload.span, undefined);
    else
      malformed(scope, payload, {
        expected: `${describeBody(format)} after ${quoted(payload.after)}`,
        position: args.start,
        why: 'no call reads there',
      });
    return;
  }
  const read = sniffArguments(ctx.text, args, { grammar: format.arguments, schema: schemaOf(ctx.tools, name) });
  if (read.ok) {
    emit(scope, payload.span, [{ name, args: read.args, repairs: read.repairs }]);
    return;
  }
  if (read.cut && args.end === ctx.text.length) {
    truncated(scope, payload.span, name);
    return;
  }
  malformed(scope, payload, {
    name,
    expected: `the arguments ${describeGrammar(format.arguments)} after ${quoted(payload.after)}`,
    position: read.position,
    why: read.message,
  });
}
