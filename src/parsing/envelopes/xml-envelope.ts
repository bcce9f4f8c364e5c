import type { RepairKind, Span } from '../types.ts';
import type { Envelope, Payload } from './envelope.ts';
import { DEFAULT_MAX_ENVELOPES } from './envelope.ts';
import { isCallOpener, readCall } from './xml-calls.ts';
import type { CallRead } from './xml-calls.ts';
import { XML_BLOCK_NAMES, XML_FAMILIES } from './xml-families.ts';
import type { XmlFamily } from './xml-families.ts';
import { tagIndexAt } from './xml-grammar.ts';
import type { Tag } from './xml-grammar.ts';

/** What the XML finders share: choosing a family from its exact tags, and closing an envelope. */
export interface Scope {
  text: string;
  tags: readonly Tag[];
  /**
   * The rest of a run of calls read outside any block, kept so the next call is not read again (quadratic otherwise).
   */
  run?: { from: number; calls: CallRead[] };
}

export interface Read {
  envelope?: Envelope;
  next: number;
}

export const GLM_NAME_RE = /^[A-Za-z_](?:[\w.-]*\w)?$/;

export type BodyKind = 'json' | 'glm' | 'parameters' | 'function_json';

function spelled(tag: Tag): string {
  return tag.ns + tag.local;
}

/** The family whose exact tags these are; the first of the table on a tie. */
export function chooseFamily(block: Tag | undefined, call: Tag | undefined, kind: BodyKind): XmlFamily {
  const fits = XML_FAMILIES.filter((f) => {
    if (kind === 'json' || kind === 'glm') return f.body === kind;
    if (f.call?.local !== call?.local) return false;
    return call?.local !== 'function' || f.args === (kind === 'function_json' ? 'json' : 'parameters');
  });
  let best = fits[0] ?? XML_FAMILIES[0];
  let bestScore = -1;
  for (const f of fits) {
    const blockFits =
      block !== undefined && f.blocks.some((b) => b.open === spelled(block) || b.close.includes(spelled(block)));
    const score =
      (blockFits ? 2 : 0) + (call !== undefined && call.ns !== '' && f.namespaces.includes(call.ns) ? 1 : 0);
    if (score > bestScore) {
      best = f;
      bestScore = score;
    }
  }
  return best;
}

/** Tags written with a namespace the family does not use. */
function namespaced(family: XmlFamily, tags: readonly Tag[]): boolean {
  return tags.some((tag) => {
    if (tag.ns === '' || tag.sentinel) return false;
    if (XML_BLOCK_NAMES.has(tag.local))
      return !family.blocks.some((b) => b.open === spelled(tag) || b.close.includes(spelled(tag)));
    return !family.namespaces.includes(tag.ns);
  });
}

/** Leaked sentinels right after the envelope go with it (a family's own terminators stay). */
function absorbSentinels(
  scope: Scope,
  family: XmlFamily,
  at: { end: number; next: number; repairs: Set<RepairKind> },
): void {
  let next = tagIndexAt(scope.tags, at.end);
  for (
    let tag = scope.tags[next];
    tag?.sentinel === true && scope.text.slice(at.end, tag.start).trim() === '';
    tag = scope.tags[next]
  ) {
    if (family.terminators?.includes(tag.local) === true) break;
    at.end = tag.end;
    at.repairs.add('leaked_sentinel');
    next += 1;
  }
  at.next = Math.max(at.next, next);
}

export function envelope(
  scope: Scope,
  parts: {
    family: XmlFamily;
    span: Span;
    payloads: Payload[];
    unclosed: boolean;
    repairs: Set<RepairKind>;
    tags: Tag[];
    next: number;
  },
): Read {
  const { family, span, repairs } = parts;
  if (namespaced(family, parts.tags)) repairs.add('namespaced_tags');
  const at = { end: span.end, next: parts.next, repairs };
  absorbSentinels(scope, family, at);
  const env: Envelope = {
    family: family.family,
    span: { start: span.start, end: at.end },
    strong: true,
    payloads: parts.payloads,
    unclosed: parts.unclosed,
  };
  if (repairs.size > 0) env.repairs = [...repairs];
  return { envelope: env, next: at.next };
}

/**
 * Calls from tag `from` on, each followed by the next with only whitespace between (or inside a block, up to `end`).
 */
export function readCalls(scope: Scope, from: number, limit: { end: number; inBlock: boolean }): CallRead[] {
  const { text, tags } = scope;
  const calls: CallRead[] = [];
  let k = from;
  while (k < tags.length && calls.length < DEFAULT_MAX_ENVELOPES) {
    const call = readCall(text, tags, { i: k, end: limit.end });
    if (call === undefined) break;
    calls.push(call);
    k = call.next;
    if (limit.inBlock) k = nextCallOpener(tags, k, limit.end);
    const tag = tags[k];
    if (tag === undefined || tag.start >= limit.end || !isCallOpener(tag)) break;
    if (!limit.inBlock && text.slice(call.end, tag.start).trim() !== '') break;
  }
  return calls;
}

/**
 * The first call opener from tags[k] on before offset `end`, or the first tag at or past `end` (or the end of the
 * tags).
 */
function nextCallOpener(tags: readonly Tag[], from: number, end: number): number {
  let k = from;
  for (let tag = tags[k]; tag !== undefined && tag.start < end && !isCallOpener(tag); tag = tags[k]) k += 1;
  return k;
}

export function bodyKind(call: CallRead): BodyKind {
  return call.args === 'json' && call.open.local === 'function' ? 'function_json' : 'parameters';
}

export function mergeCalls(calls: readonly CallRead[], repairs: Set<RepairKind>, tags: Tag[]): Payload[] {
  for (const call of calls) {
    for (const kind of call.repairs) repairs.add(kind);
    tags.push(...call.tags);
  }
  return calls.map((call) => call.payload);
}
