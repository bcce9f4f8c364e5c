import { isJsonObject } from '../../core/json.ts';
import type { JsonObject } from '../../core/json.ts';
import { indexInTagHead, skipSpace } from '../envelopes/envelope.ts';
import { readChildTags, xmlValue } from '../envelopes/xml-params.ts';
import type { ExtractContext } from '../extract-context.ts';
import { setJsonKey } from '../../core/set-json-key.ts';
import type { RepairKind, Span } from '../types.ts';
import { DEFAULT_MAX_SHAPE_CHARS, readStructure } from './shape-arguments.ts';
import type { Shape, StructureReading } from './shape-arguments.ts';

/**
 * A tag named after a declared tool: `<get_weather><city>Paris</city></get_weather>`,
 * `<get_weather city="Paris"/>`, `<get_weather>{"city": "Paris"}</get_weather>`.
 * Its children must be parameters of the tool's schema (unless the schema
 * allows other properties): `<search_web><div>…</div></search_web>` is
 * markup, not arguments.
 */

const ATTRIBUTE_RE = /\s*([A-Za-z_][\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/y;
const EXPECTED = '<tool><param>value</param></tool>, with one child tag per parameter';

function attributes(head: string): JsonObject | undefined {
  const args: JsonObject = {};
  let pos = 0;
  while (pos < head.length) {
    if (head.slice(pos).trim() === '') break;
    ATTRIBUTE_RE.lastIndex = pos;
    const m = ATTRIBUTE_RE.exec(head);
    const key = m?.[1];
    if (m === null || key === undefined) return undefined;
    setJsonKey(args, key, xmlValue(m[2] ?? m[3] ?? ''));
    pos += m[0].length;
  }
  return args;
}

/** The schema's parameter names, or undefined when any name goes. */
function parameterNames(ctx: ExtractContext, name: string): ReadonlySet<string> | undefined {
  const schema = ctx.tools.get(name)?.inputSchema;
  const properties = schema?.['properties'];
  if (schema === undefined || !isJsonObject(properties) || schema['additionalProperties'] === true) return undefined;
  if (schema['additionalProperties'] === undefined && Object.keys(properties).length === 0) return undefined;
  return new Set(Object.keys(properties));
}

/** A failed reading at `position`; the tag runs to `end`; `cut` when the text ended inside it. */
function fail(message: string, at: { position: number; end: number; cut?: boolean }): StructureReading {
  return { status: 'failed', message, position: at.position, cut: at.cut ?? false, end: at.end, expected: EXPECTED };
}

/** The inside of the tag: child tags, or any argument structure (JSON, XML parameters). */
function readInside(ctx: ExtractContext, inside: Span, closed: boolean): StructureReading {
  const text = ctx.text;
  const start = skipSpace(text, inside.start, inside.end);
  if (start >= inside.end) return { status: 'read', args: {}, repairs: [], end: inside.end };
  if (text.startsWith('<parameter', start) || text.startsWith('<arg_key', start) || text.charAt(start) !== '<') {
    const reading = readStructure(text, start, { truncated: ctx.truncated });
    if (reading === undefined) return fail('the tag holds text, not arguments', { position: start, end: inside.end });
    if (reading.status === 'read' && skipSpace(text, reading.end, inside.end) < inside.end)
      return fail('text after the arguments is not part of them', { position: reading.end, end: inside.end });
    return reading;
  }
  const children = readChildTags(text, { start, end: inside.end });
  if (children.consumed < inside.end) {
    const cut = !closed && inside.end === text.length;
    return fail('a child tag does not close, or text stands between the child tags', {
      position: children.consumed,
      end: inside.end,
      cut: cut && ctx.truncated,
    });
  }
  return { status: 'read', args: children.args, repairs: [...children.repairs], end: inside.end };
}

/** The shape of the tag opening at `run.start` (its `<`), or undefined when it is no such tag. */
export function readToolTag(
  ctx: ExtractContext,
  run: { start: number; end: number; name: string; repairs: RepairKind[] },
): Shape | undefined {
  const text = ctx.text;
  const gt = indexInTagHead(text, '>', run.end);
  if (gt < 0) return undefined;
  const selfClosing = text.charAt(gt - 1) === '/';
  const head = text.slice(run.end, selfClosing ? gt - 1 : gt);
  if (head !== '' && !/^\s/.test(head)) return undefined;
  const attrs = attributes(head);
  if (attrs === undefined) return undefined;
  const shape = (reading: StructureReading, end: number, repairs: RepairKind[] = []): Shape => ({
    kind: 'tool_named_tag',
    span: { start: run.start, end },
    name: run.name,
    nameRepairs: run.repairs,
    reading: reading.status === 'read' ? { ...reading, repairs: [...reading.repairs, ...repairs] } : reading,
    callPosition: true,
  });
  if (selfClosing) return shape({ status: 'read', args: attrs, repairs: [], end: gt + 1 }, gt + 1);
  const closer = `</${text.slice(run.start + 1, run.end)}>`;
  const limit = Math.min(text.length, gt + 1 + DEFAULT_MAX_SHAPE_CHARS);
  const found = text.slice(gt + 1, limit).indexOf(closer);
  const closeAt = found < 0 ? -1 : gt + 1 + found;
  if (closeAt < 0 && (skipSpace(text, gt + 1) >= text.length || text.charAt(skipSpace(text, gt + 1)) !== '<'))
    return undefined;
  const inside = { start: gt + 1, end: closeAt < 0 ? text.length : closeAt };
  const reading = readInside(ctx, inside, closeAt >= 0);
  const end = closeAt < 0 ? text.length : closeAt + closer.length;
  if (reading.status !== 'read') return shape(reading, end);
  const args = { ...attrs, ...reading.args };
  const allowed = parameterNames(ctx, run.name);
  const stranger = allowed === undefined ? undefined : Object.keys(args).find((key) => !allowed.has(key));
  if (stranger !== undefined) {
    return shape(
      fail(`"${stranger}" is not a parameter of "${run.name}" (its parameters: ${[...(allowed ?? [])].join(', ')})`, {
        position: run.start,
        end,
      }),
      end,
    );
  }
  if (closeAt < 0 && ctx.truncated)
    return shape(fail('the text ends inside the tag', { position: text.length, end, cut: true }), end);
  return shape({ ...reading, args }, end, closeAt < 0 ? ['missing_closer'] : []);
}
