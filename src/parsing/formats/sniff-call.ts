import { isJsonObject } from '../../core/json.ts';
import type { JsonSchema, JsonValue } from '../../core/json.ts';
import { readCallShapes } from '../call-shapes.ts';
import { skipSpace, trimSpan } from '../envelopes/envelope.ts';
import { parseBoundedPythonicCalls } from '../pythonic.ts';
import { readJson } from '../repair-json.ts';
import { cleanToolName } from '../tool-names.ts';
import type { RepairKind, Span, ToolRef } from '../types.ts';
import type { ArgumentGrammar, NameSlot } from './call-format.ts';
import { readLiteralValue } from './object-literal.ts';
import { sniffArguments } from './read-arguments.ts';
import { nameEnd } from './scan.ts';

/**
 * A call body read without knowing its shape: a JSON(-like) call object, a
 * `{"tool": {…}}` object, a Python call, or a name followed by arguments in
 * any grammar. Used where an envelope is certain but its body does not read
 * as its own format says. Only calls to declared tools come out, and only
 * when the whole body is read.
 */

export interface SniffedCall {
  name: string;
  args: JsonValue | undefined;
  repairs: RepairKind[];
}

const NO_DELIMITERS: readonly (readonly [string, string])[] = [['<escape>', '<escape>']];

function declared(tools: ReadonlyMap<string, ToolRef>, name: string): boolean {
  return tools.has(name) || tools.has(cleanToolName(name, (n) => tools.has(n)).name);
}

/** The input schema of the declared tool `name` is (after cleaning), if any. */
export function schemaOf(tools: ReadonlyMap<string, ToolRef>, name: string): JsonSchema | undefined {
  return (tools.get(name) ?? tools.get(cleanToolName(name, (n) => tools.has(n)).name))?.inputSchema;
}

/** A JSON or object-literal value filling `span`. */
export function readBodyValue(
  text: string,
  span: Span,
  delimiters: readonly (readonly [string, string])[] = NO_DELIMITERS,
): { value: JsonValue; repairs: RepairKind[] } | undefined {
  const json = readJson(text.slice(span.start, span.end), { allowCloseAtEnd: false, lastResort: false });
  if (json.ok) return { value: json.value, repairs: json.repairs };
  const literal = readLiteralValue(text, span, delimiters);
  return literal.ok ? { value: literal.value, repairs: literal.repairs } : undefined;
}

/** Calls in a JSON value, as `slot` says (or as any known call shape). */
export function callsInValue(value: JsonValue, slot: NameSlot | undefined): SniffedCall[] {
  const items = Array.isArray(value) ? value : [value];
  const out: SniffedCall[] = [];
  for (const item of items) {
    if (!isJsonObject(item)) return [];
    if (slot?.slot === 'field' && typeof item[slot.nameKey] === 'string') {
      out.push({ name: String(item[slot.nameKey]), args: item[slot.argumentsKey], repairs: [] });
      continue;
    }
    const keys = Object.keys(item);
    const [key] = keys;
    if (slot?.slot === 'key' && key !== undefined && keys.length === 1) {
      out.push({ name: key, args: item[key], repairs: [] });
      continue;
    }
    const shapes = readCallShapes(item).intents.filter((intent) => !intent.echo);
    if (shapes.length > 0) for (const intent of shapes) out.push({ name: intent.name, args: intent.args, repairs: [] });
    else if (key !== undefined && keys.length === 1 && isJsonObject(item[key]))
      out.push({ name: key, args: item[key], repairs: [] });
    else return [];
  }
  return out;
}

/** The calls `span` holds, read in any shape, when every one names a declared tool; else none. */
export function sniffCall(
  text: string,
  span: Span,
  options: { tools: ReadonlyMap<string, ToolRef>; grammar?: ArgumentGrammar },
): SniffedCall[] {
  const { tools } = options;
  const body = trimSpan(text, span);
  if (body.start >= body.end) return [];
  const allDeclared = (calls: SniffedCall[]): SniffedCall[] =>
    calls.length > 0 && calls.every((call) => declared(tools, call.name)) ? calls : [];
  const c = text.charAt(body.start);
  if (c === '{' || c === '[') {
    const read = readBodyValue(text, body);
    if (read !== undefined) {
      const calls = allDeclared(callsInValue(read.value, undefined));
      if (calls.length > 0) return calls.map((call) => ({ ...call, repairs: read.repairs }));
    }
  }
  const pythonic = parseBoundedPythonicCalls(text, body.start, body.end);
  if (pythonic.ok)
    return allDeclared(pythonic.calls.map((call) => ({ name: call.name, args: call.arguments, repairs: [] })));
  // A name, then its arguments in any grammar: `get_weather {"city": …}`, `get_weather<parameter=city>…`.
  const end = nameEnd(text, body.start, body.end);
  const name = text.slice(body.start, end);
  if (name === '' || !declared(tools, name)) return [];
  let argsStart = skipSpace(text, end, body.end);
  if (text.charAt(argsStart) === ':') argsStart = skipSpace(text, argsStart + 1, body.end);
  const args = sniffArguments(
    text,
    { start: argsStart, end: body.end },
    { grammar: options.grammar ?? { grammar: 'json' }, schema: schemaOf(tools, name) },
  );
  return args.ok ? [{ name, args: args.args, repairs: args.repairs }] : [];
}
