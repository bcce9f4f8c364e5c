import type { JsonValue } from '../core/json.ts';
import { readCallShapes } from './call-shapes.ts';
import type { Payload } from './envelopes/envelope.ts';
import { charge, excerpt } from './extract-context.ts';
import type { Scope } from './extract-context.ts';
import { DEFAULT_MAX_READ_DEPTH } from './lenient-json.ts';
import { looksPythonic, parsePythonicCalls } from './pythonic.ts';
import { readJson } from './repair-json.ts';
import { resolveIntent } from './resolve-intent.ts';
import { findNextRegion } from './scanner.ts';
import { sniffArguments } from './formats/read-arguments.ts';
import { resolveFormatCall } from './formats/resolve-format-call.ts';
import { schemaOf, sniffCall } from './formats/sniff-call.ts';
import type { Region } from './scanner.ts';
import { resolveSniffed } from './shapes/special-body.ts';
import type { RepairKind, Span } from './types.ts';

/** A name key followed by a name: enough to say "this broken JSON was meant as a call". */
const NAMED_RE = /["']?(?:name|tool_name|tool|function|action)["']?\s*[:=]\s*["']([A-Za-z_][\w.-]*)["']/;
const GUESS_WINDOW = 400;

/** The tool name a broken or cut call was about, when one can be read. */
export function guessName(text: string, span: Span): string | undefined {
  const head = text.slice(span.start, Math.min(span.end, span.start + GUESS_WINDOW));
  const match = NAMED_RE.exec(head);
  return match?.[1] === 'call_tool' ? /["']tool_name["']\s*:\s*["']([\w.-]+)/.exec(head)?.[1] : match?.[1];
}

function truncatedDiagnostic({ ctx, outcome }: Scope, span: Span, name: string | undefined): void {
  const what = name === undefined ? 'A tool call' : `The call to "${name}"`;
  const why = ctx.truncated ? 'the reply hit its length limit' : 'the reply ended in the middle of it';
  outcome.diagnostics.push({
    code: 'truncated',
    message: `${what} was cut off before it was complete (${why}).`,
    span,
    ...(name === undefined ? {} : { name }),
  });
}

function invalidJsonDiagnostic(
  { ctx, outcome }: Scope,
  span: Span,
  failure: { message: string; position: number },
): void {
  const position = span.start + failure.position;
  const name = guessName(ctx.text, span);
  outcome.diagnostics.push({
    code: 'invalid_json',
    message:
      `Invalid JSON${name === undefined ? '' : ` in the call to "${name}"`} at ` +
      `position ${position}: ${failure.message}. Near: ${excerpt(ctx.text, position)}`,
    span,
    position,
    ...(name === undefined ? {} : { name }),
  });
}

export type JsonReading =
  | { status: 'read'; value: JsonValue; repairs: RepairKind[] }
  /** Not JSON even after repairs; nothing reported yet (weak regions: the caller looks inside first). */
  | { status: 'failed'; message: string; position: number; cut: boolean }
  /** A diagnostic is in the outcome; or a region too deep to read was skipped. */
  | { status: 'reported' };

/** Reports a region that could not be read: cut at the end of the text, or invalid JSON. */
export function reportUnreadable(
  scope: Scope,
  span: Span,
  failure: { message: string; position: number; cut: boolean },
): void {
  if (failure.cut) truncatedDiagnostic(scope, span, guessName(scope.ctx.text, span));
  else invalidJsonDiagnostic(scope, span, failure);
}

/**
 * Where `...` or `…` stands outside any string of the JSON in `span`
 * (`"arguments": {...}`), or -1. Repairs would read such a template as
 * empty arguments: an invented value.
 */
export function placeholderAt(text: string, span: Span): number {
  let quote = '';
  for (let i = span.start; i < span.end; i += 1) {
    const c = text.charAt(i);
    if (quote !== '') {
      if (c === '\\') i += 1;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '…' || (c === '.' && text.startsWith('...', i))) return i;
  }
  return -1;
}

/**
 * Reads one JSON region. A region still open at the end of the text is cut:
 * when the reply was truncated it is reported as such, otherwise closing it
 * is a repair. Strong regions report their failures at once.
 */
export function readRegion(scope: Scope, region: Region, strong: boolean): JsonReading {
  const { ctx } = scope;
  const span = { start: region.start, end: region.end };
  const reachesEnd = !region.closed && region.end === ctx.text.length;
  // Unclosed brackets are closed, unless the text itself was cut there (finish_reason 'length'):
  // inside a closed envelope or a finished reply, a missing `}` is a slip, not a cut.
  const allowCloseAtEnd = !region.closed && !(reachesEnd && ctx.truncated);
  if (region.maxDepth > DEFAULT_MAX_READ_DEPTH) {
    if (strong)
      invalidJsonDiagnostic(scope, span, {
        message: `nested deeper than ${DEFAULT_MAX_READ_DEPTH} levels`,
        position: 0,
      });
    return { status: 'reported' };
  }
  // Bare JSON after prose that the reply ends inside is cut, not a call to repair: a
  // quoted log line or an unfinished thought. A reply that is nothing but the JSON keeps the repair.
  const cutAfterProse = reachesEnd && !strong && ctx.text.slice(0, region.start).trim() !== '';
  if (reachesEnd && ctx.truncated) {
    const failure = {
      status: 'failed' as const,
      message: 'the text ends inside it',
      position: region.end - region.start,
      cut: true,
    };
    if (!strong) return failure;
    reportUnreadable(scope, span, failure);
    return { status: 'reported' };
  }
  charge(ctx, 3 * (region.end - region.start));
  const placeholder = placeholderAt(ctx.text, span);
  if (placeholder >= 0) {
    const failure = {
      status: 'failed' as const,
      message: 'it holds a placeholder ("..." where a value belongs): it is a template, not a call',
      position: placeholder - region.start,
      cut: false,
    };
    if (!strong) return failure;
    reportUnreadable(scope, span, failure);
    return { status: 'reported' };
  }
  // jsonrepair (slow, and it throws) only for text that names a tool: prose braces never need it.
  const lastResort = strong || guessName(ctx.text, span) !== undefined;
  const result = readJson(ctx.text.slice(region.start, region.end), { allowCloseAtEnd, lastResort });
  if (result.ok && cutAfterProse)
    return { status: 'failed', message: 'the text ends inside it', position: region.end - region.start, cut: true };
  if (result.ok) return { status: 'read', value: result.value, repairs: result.repairs };
  const failure = {
    status: 'failed' as const,
    message: result.message,
    position: result.position,
    cut: reachesEnd && result.atEnd,
  };
  if (!strong) return failure;
  reportUnreadable(scope, span, failure);
  return { status: 'reported' };
}

/** Reads a JSON value's call shapes into the outcome. */
export function resolveValue(
  scope: Scope,
  value: JsonValue,
  source: { strong: boolean; span: Span; repairs: RepairKind[] },
): void {
  const { outcome } = scope;
  const reading = readCallShapes(value);
  if (reading.answer !== undefined) outcome.answer = reading.answer;
  for (const intent of reading.intents) resolveIntent(scope, intent, source);
  if (reading.intents.length === 0 && source.strong) {
    outcome.diagnostics.push({
      code: 'malformed_call',
      message: 'The call has no tool name: expected {"name": "<tool>", "arguments": {…}}.',
      span: source.span,
    });
  }
}

/**
 * Reads pythonic calls into the outcome. With `report: false` a failure adds
 * nothing (prose that merely looks like a call); the return says whether it read.
 */
export function resolvePythonic(scope: Scope, span: Span, report = true): boolean {
  const { ctx, outcome } = scope;
  charge(ctx, span.end - span.start);
  const parsed = parsePythonicCalls(ctx.text, span.start, span.end);
  if (!parsed.ok) {
    if (!report) return false;
    if (parsed.atEnd && span.end === ctx.text.length) truncatedDiagnostic(scope, span, undefined);
    else
      outcome.diagnostics.push({
        code: 'malformed_call',
        message:
          `Could not read the call at position ${parsed.position}: ` +
          `${parsed.message}. Near: ${excerpt(ctx.text, parsed.position)}`,
        span,
        position: parsed.position,
      });
    return false;
  }
  for (const call of parsed.calls) {
    resolveIntent(
      scope,
      { name: call.name, args: call.arguments, explicit: true, echo: false },
      { strong: true, span: call.span, repairs: [] },
    );
  }
  return true;
}

function resolveJsonPayload(scope: Scope, span: Span, strong: boolean): void {
  const { ctx } = scope;
  let pos = span.start;
  while (pos < span.end) {
    const region = findNextRegion(ctx.text, pos, span.end);
    if (region === undefined || !charge(ctx, region.end - pos)) break;
    const regionSpan = { start: region.start, end: region.end };
    if (strong && looksPythonic(ctx.text, region.start, region.end)) {
      // `<tool_call>[get_weather(city="Paris")]</tool_call>`
      resolvePythonic(scope, regionSpan);
    } else {
      const reading = readRegion(scope, region, strong);
      if (reading.status === 'read')
        resolveValue(scope, reading.value, { strong, span: regionSpan, repairs: reading.repairs });
      else if (reading.status === 'failed' && guessName(ctx.text, regionSpan) !== undefined)
        reportUnreadable(scope, regionSpan, reading);
    }
    pos = region.end;
  }
}

/** Resolves one payload of an envelope into the outcome. */
export function resolvePayload(scope: Scope, payload: Payload, strong: boolean): void {
  const { ctx, outcome } = scope;
  switch (payload.kind) {
    case 'json':
      if (strong) sniffing(scope, payload.span, () => resolveJsonPayload(scope, payload.span, strong));
      else resolveJsonPayload(scope, payload.span, strong);
      return;
    case 'pythonic':
      resolvePythonic(scope, payload.span);
      return;
    case 'format':
      resolveFormatCall(scope, payload);
      return;
    case 'sniffed':
      resolveSniffed(scope, payload);
      return;
    case 'malformed':
      sniffing(scope, payload.span, () => {
        outcome.diagnostics.push({
          code: 'malformed_call',
          message: `${payload.message.replace(/\.$/, '')} (at position ${payload.span.start}).`,
          span: payload.span,
          position: payload.span.start,
        });
      });
      return;
    case 'named':
      break;
  }
  if (payload.reachesEnd && (ctx.truncated || payload.cutValue === true)) {
    truncatedDiagnostic(scope, payload.span, payload.name || undefined);
    return;
  }
  if (payload.name === '') {
    outcome.diagnostics.push({ code: 'malformed_call', message: 'The call has no tool name.', span: payload.span });
    return;
  }
  const noRepairs: RepairKind[] = [];
  const source = { strong: true, span: payload.span, repairs: noRepairs };
  if (payload.args.kind === 'none') {
    resolveIntent(scope, { name: payload.name, args: undefined, explicit: true, echo: false }, source);
    return;
  }
  if (payload.args.kind === 'object') {
    resolveIntent(scope, { name: payload.name, args: payload.args.value, explicit: true, echo: false }, source);
    return;
  }
  const argsSpan = payload.args.span;
  const region: Region = { ...argsSpan, closed: payload.args.closed, maxDepth: 0 };
  const reading = readRegion(scope, region, true);
  if (reading.status === 'read') {
    resolveIntent(
      scope,
      { name: payload.name, args: reading.value, explicit: true, echo: false },
      { ...source, repairs: reading.repairs },
    );
    return;
  }
  // Not JSON: the arguments may be written in another grammar (`[ARGS]city="Paris"`, `<parameter=…>`).
  if (!payload.args.closed && argsSpan.end === ctx.text.length) return;
  const sniffed = sniffArguments(ctx.text, argsSpan, {
    grammar: { grammar: 'json' },
    schema: schemaOf(ctx.tools, payload.name),
  });
  if (!sniffed.ok) return;
  outcome.diagnostics = outcome.diagnostics.filter(
    (d) => d.span === undefined || d.span.end <= argsSpan.start || d.span.start >= argsSpan.end,
  );
  resolveIntent(
    scope,
    { name: payload.name, args: sniffed.args, explicit: true, echo: false },
    { ...source, repairs: sniffed.repairs },
  );
}

/**
 * A strong envelope whose body does not read as its family's grammar may be
 * written in another one (`<tool_call>` holding `name {key: 'v'}`, or a name
 * then `<parameter=…>` elements): when the family's reading yields no call,
 * every grammar is tried, and what reads whole, naming declared tools, is taken.
 */
function sniffing(scope: Scope, span: Span, read: () => void): void {
  const { ctx, outcome } = scope;
  const callsBefore = outcome.calls.length;
  const diagnosticsBefore = outcome.diagnostics.length;
  read();
  if (outcome.calls.length > callsBefore || outcome.diagnostics.length === diagnosticsBefore) return;
  const calls = sniffCall(ctx.text, span, { tools: ctx.tools });
  if (calls.length === 0) return;
  outcome.diagnostics.length = diagnosticsBefore;
  for (const call of calls)
    resolveIntent(
      scope,
      { name: call.name, args: call.args, explicit: true, echo: false },
      { strong: true, span, repairs: call.repairs },
    );
}
