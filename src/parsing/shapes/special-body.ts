import { isJsonObject } from '../../core/json.ts';
import type { Scope } from '../extract-context.ts';
import { excerpt } from '../extract-context.ts';
import type { ArgumentGrammar } from '../formats/call-format.ts';
import { readLiteralValue } from '../formats/object-literal.ts';
import { sniffArguments } from '../formats/read-arguments.ts';
import { schemaOf, sniffCall } from '../formats/sniff-call.ts';
import type { SniffedCall } from '../formats/sniff-call.ts';
import { nameEnd } from '../formats/scan.ts';
import { skipSpace, trimSpan } from '../envelopes/envelope.ts';
import { resolveIntent } from '../resolve-intent.ts';
import { scanRegion } from '../scanner.ts';
import type { Span } from '../types.ts';
import { declaredIn } from './special-envelope.ts';

/**
 * The body of an envelope of unknown special-token markers
 * (special-envelope.ts), read in every shape: a JSON call or list of calls
 * (`{"tool": {…}}` included), pythonic calls, or a declared name followed by
 * its arguments in any grammar. Object literals may delimit their strings
 * with a repeated token instead of a quote (`<escape>Paris<escape>`); such
 * tokens are found in the body, not listed. A body that reads as no call is
 * a failed call with its position and what was expected.
 */

/** A token delimiting strings: `<…>` without blanks, at most this long. */
const DELIMITER_RE = /[:,[({]\s*(<[^\s<>]{1,16}>)/g;
const MAX_DELIMITERS = 4;

/**
 * Tokens used as string quotes in the body: a `<…>` token that stands right
 * after `:`, `,`, `[`, `(` or `{` (where a value starts) and comes again
 * later right before `,`, `}`, `]` or `)` (where a value ends).
 */
export function findDelimiterTokens(text: string, span: Span): [string, string][] {
  const body = text.slice(span.start, span.end);
  const seen = new Set<string>();
  const out: [string, string][] = [];
  for (const m of body.matchAll(DELIMITER_RE)) {
    const token = m[1];
    if (token === undefined || seen.has(token)) continue;
    seen.add(token);
    if (seen.size > 2 * MAX_DELIMITERS) break;
    const after = m.index + m[0].length;
    const close = body.indexOf(token, after);
    if (close < 0) continue;
    const next = body.charAt(skipSpace(body, close + token.length));
    if (next !== '' && ',}])'.includes(next)) out.push([token, token]);
    if (out.length >= MAX_DELIMITERS) break;
  }
  return out;
}

/** `name(key: "v", other: 1)`: keyword arguments written with colons, read as an object literal. */
function colonArguments(
  text: string,
  span: Span,
  sniff: { delimiters: readonly (readonly [string, string])[]; declared: (name: string) => boolean },
): SniffedCall | undefined {
  const { delimiters, declared } = sniff;
  const body = trimSpan(text, span);
  const end = nameEnd(text, body.start, body.end);
  const name = text.slice(body.start, end);
  const open = skipSpace(text, end, body.end);
  if (name === '' || !declared(name) || text.charAt(open) !== '(' || text.charAt(body.end - 1) !== ')')
    return undefined;
  const literal = `{${text.slice(open + 1, body.end - 1)}}`;
  const read = readLiteralValue(literal, { start: 0, end: literal.length }, delimiters);
  return read.ok && isJsonObject(read.value) ? { name, args: read.value, repairs: read.repairs } : undefined;
}

/** Why the body reads as nothing: the position and message of the best reading. */
function failureOf(
  scope: Scope,
  span: Span,
  grammar: ArgumentGrammar,
): { position: number; message: string; cut: boolean; name?: string } {
  const { ctx } = scope;
  const text = ctx.text;
  const body = trimSpan(text, span);
  const c = text.charAt(body.start);
  if (c === '[' || c === '{') {
    const region = scanRegion(text, body.start, body.end);
    if (!region.closed)
      return { position: region.end, message: 'its brackets never close', cut: region.end === text.length };
    return { position: body.start, message: 'it is not a call to a declared tool in any known shape', cut: false };
  }
  const end = nameEnd(text, body.start, body.end);
  const name = text.slice(body.start, end);
  let argsStart = skipSpace(text, end, body.end);
  if (text.charAt(argsStart) === ':') argsStart = skipSpace(text, argsStart + 1, body.end);
  const args = sniffArguments(
    text,
    { start: argsStart, end: body.end },
    { grammar, schema: schemaOf(ctx.tools, name) },
  );
  if (args.ok) return { position: body.end, message: 'text follows the arguments', cut: false, name };
  return { position: args.position, message: args.message, cut: args.cut && body.end === text.length, name };
}

const EXPECTED =
  'a declared tool\'s name followed by its arguments — JSON ({"key": "value"}), an ' +
  'object literal, (key="value") pairs or XML parameters — or a JSON list of calls';

/** Resolves the body of an unknown special-token envelope into calls or one failure. */
export function resolveSniffed(scope: Scope, payload: { span: Span; opener: string; cut: boolean }): void {
  const { ctx, outcome } = scope;
  const delimiters = findDelimiterTokens(ctx.text, payload.span);
  const grammar: ArgumentGrammar =
    delimiters.length > 0
      ? { grammar: 'object_literal', stringDelimiters: delimiters, unquotedKeys: true }
      : { grammar: 'json' };
  let calls = sniffCall(ctx.text, payload.span, { tools: ctx.tools, grammar });
  if (calls.length === 0) {
    const colon = colonArguments(ctx.text, payload.span, { delimiters, declared: declaredIn(ctx.tools) });
    if (colon !== undefined) calls = [colon];
  }
  if (calls.length > 0) {
    for (const call of calls)
      resolveIntent(
        scope,
        { name: call.name, args: call.args, explicit: true, echo: false },
        { strong: true, span: payload.span, repairs: call.repairs },
      );
    return;
  }
  const failure = failureOf(scope, payload.span, grammar);
  const named = failure.name === undefined || failure.name === '' ? {} : { name: failure.name };
  if (failure.cut && (payload.cut || ctx.truncated)) {
    outcome.diagnostics.push({
      code: 'truncated',
      message:
        `The call after ${payload.opener} was cut off before it was complete ` +
        `(the reply ended inside its arguments, at position ${failure.position}).`,
      span: payload.span,
      position: failure.position,
      ...named,
    });
    return;
  }
  outcome.diagnostics.push({
    code: 'malformed_call',
    message:
      `The call after ${payload.opener} at position ${failure.position} cannot be read: ` +
      `${failure.message}. Expected ${EXPECTED}. Near: ${excerpt(ctx.text, failure.position)}`,
    span: payload.span,
    position: failure.position,
    ...named,
  });
}
