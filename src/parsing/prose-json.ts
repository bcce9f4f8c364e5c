import { commitOutcome } from './accumulator.ts';
import type { Accumulator } from './accumulator.ts';
import { exampleReason } from './example-context.ts';
import { charge, DEFAULT_MAX_CALLS, DEFAULT_MAX_DIAGNOSTICS, emptyOutcome } from './extract-context.ts';
import type { ExtractContext } from './extract-context.ts';
import { looksPythonic, pythonicCallsEnd } from './pythonic.ts';
import { guessName, readRegion, reportUnreadable, resolvePythonic, resolveValue } from './resolve-payload.ts';
import { findNextRegion } from './scanner.ts';
import type { Span } from './types.ts';

/**
 * Calls written as bare JSON inside prose (seed 000's brace scan, seed 001's
 * "the code is as follows: {…}"). Each balanced region is read; one that does
 * not read as JSON is searched inside (`{ see {"name": …} }`), and reported as
 * broken only when nothing inside it was a call and it named a declared tool.
 */

interface Unreadable {
  span: Span;
  failure: { message: string; position: number; cut: boolean };
}

function atLineStart(text: string, index: number): boolean {
  for (let i = index - 1; i >= 0; i -= 1) {
    const c = text.charAt(i);
    if (c === '\n') return true;
    if (c !== ' ' && c !== '\t') return false;
  }
  return true;
}

/** Every call quotes its tool name or calls it with parentheses. */
function mayHoldCall(text: string, span: Span): boolean {
  for (let i = span.start; i < span.end; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x27 || c === 0x28) return true;
  }
  return false;
}

function isWholeText(text: string, span: Span): boolean {
  return text.slice(0, span.start).trim() === '' && text.slice(span.end).trim() === '';
}

function reportPending(ctx: ExtractContext, acc: Accumulator, pending: Unreadable): void {
  const name = guessName(ctx.text, pending.span);
  if (name === undefined || !ctx.tools.has(name)) return;
  const outcome = emptyOutcome();
  reportUnreadable({ ctx, outcome }, pending.span, pending.failure);
  commitOutcome(acc, outcome, { span: pending.span, exampleReason: exampleReason(ctx.text, pending.span.start) });
}

/** Finds JSON (and line-start pythonic) calls in `gap`. False when the work budget ran out. */
export function scanProse(ctx: ExtractContext, acc: Accumulator, gap: Span): boolean {
  const text = ctx.text;
  let pos = gap.start;
  let pending: Unreadable | undefined;
  while (pos < gap.end && acc.calls.length <= DEFAULT_MAX_CALLS && acc.diagnostics.length <= DEFAULT_MAX_DIAGNOSTICS) {
    let region = findNextRegion(text, pos, gap.end);
    if (region === undefined) break;
    if (
      !region.closed &&
      text.charAt(region.start) === '[' &&
      atLineStart(text, region.start) &&
      looksPythonic(text, region.start, region.end)
    ) {
      // The bracket scanner does not know Python's quoting (`'it\'s'`): the calls end where the pythonic reader says.
      const end = pythonicCallsEnd(text, region.start, gap.end);
      if (end > region.start) region = { ...region, end, closed: true };
    }
    if (pending !== undefined && region.start >= pending.span.end) {
      reportPending(ctx, acc, pending);
      pending = undefined;
    }
    if (!charge(ctx, region.end - pos)) return false;
    const span = { start: region.start, end: region.end };
    if (!mayHoldCall(text, span)) {
      // `{b}`, `[1]` and everything inside them are prose.
      pos = span.end;
      continue;
    }
    const outcome = emptyOutcome();
    // Llama 3.2 and Gemma answer with a bare pythonic list: `[get_weather(city="Paris")]`.
    const pythonic =
      region.closed &&
      text.charAt(span.start) === '[' &&
      atLineStart(text, span.start) &&
      looksPythonic(text, span.start, span.end);
    const scope = { ctx, outcome };
    if (!pythonic || !resolvePythonic(scope, span, false)) {
      const reading = readRegion(scope, region, false);
      if (reading.status === 'failed') {
        if (reading.cut && guessName(text, span) !== undefined) {
          // Cut by the token limit: report it; what is inside is cut too.
          reportUnreadable(scope, span, reading);
          commitOutcome(acc, outcome, { span, exampleReason: exampleReason(text, span.start) });
          pos = span.end;
          continue;
        }
        pending ??= { span, failure: reading };
        pos = span.start + 1;
        continue;
      }
      if (reading.status === 'read')
        resolveValue(scope, reading.value, { strong: false, span, repairs: reading.repairs });
    }
    const committed = commitOutcome(acc, outcome, { span, exampleReason: exampleReason(text, span.start) });
    if (committed !== 'nothing' && pending !== undefined && span.start < pending.span.end) pending = undefined;
    if (outcome.answer !== undefined && isWholeText(text, span) && committed !== 'example') {
      acc.answer = outcome.answer;
      acc.removed.push(span);
    }
    pos = span.end;
  }
  if (pending !== undefined) reportPending(ctx, acc, pending);
  return true;
}
