import type { Envelope } from '../envelopes/envelope.ts';
import { DEFAULT_MAX_ENVELOPES, skipSpace } from '../envelopes/envelope.ts';
import { TOKEN_FAMILIES } from '../envelopes/token-families.ts';
import { XML_FAMILIES } from '../envelopes/xml-families.ts';
import { scanBalanced } from '../formats/scan.ts';
import { cleanToolName } from '../tool-names.ts';
import type { Span, ToolRef } from '../types.ts';

/**
 * Calls between special-token-like markers that no family lists
 * (docs/parsing.md, "Shapes without a family"): `<|tool_call_start|>[f(a=1)]<|tool_call_end|>`,
 * `<start_function_call>call:f{a:<escape>x<escape>}<end_function_call>`,
 * `<|tools_prefix|>[{"f": {…}}]<|tools_suffix|>`. A new family ships new
 * tokens every month; what it keeps is the look of a special token and a
 * declared name right inside it. Such a marker directly before a declared
 * tool's call structure makes an envelope, read in every shape and grammar.
 *
 * A special-token-like marker is one of:
 * - `<|word|>`, `<|word>`, `<word|>` (and the full-width `｜`): bars inside angle brackets,
 *   the inside holding a letter and no blank (`<|"|>` is a string delimiter, not a marker);
 * - `<word>` or `</word>` whose word holds `call`, `tool` or `function` (`<start_function_call>`);
 * - `[UPPER_CASE]`, two or more capitals or underscores in square brackets (`[TOOL_CALLS]`).
 */

const MARKER_RE = /<\/?[|｜][^\s<>]{1,48}?>|<[^\s<>|｜]{1,48}[|｜]>|<\/?[A-Za-z][\w-]{0,47}>|\[[A-Z][A-Z_]{1,31}\]/g;
const CALL_WORD_RE = /call|tool|function/i;
const CLOSER_WORD_RE = /(?:^|[^a-z])(?:end|close|suffix|stop|response|result|output|observation)(?:[^a-z]|$)/i;
/** `call:` or `function:` before the name: a word and a colon, the name right after. */
const PREFIX_RE = /[A-Za-z]{1,16}:(?=[A-Za-z_])/y;
const NAME_RE = /[A-Za-z_][\w.\-/]*(?::\d+)?/y;
const ANY_NAME_RE = /[A-Za-z_][\w.\-/]*/g;
/** How far into a JSON or list body a declared name is looked for. */
const NAME_WINDOW = 400;

/**
 * The markers the families list, spelled exactly: their own finders read them (as
 * their family writes them, or as a failed call); they never open an unknown envelope.
 */
const LISTED: ReadonlySet<string> = new Set([
  ...Object.values(TOKEN_FAMILIES).flatMap((family): string[] => Object.values(family)),
  ...XML_FAMILIES.flatMap((family) =>
    family.blocks.flatMap((block) => [`<${block.open}>`, ...block.close.map((close) => `</${close}>`)]),
  ),
]);

export interface Marker {
  start: number;
  end: number;
  text: string;
}

/** The special-token-like marker filling `[start, end)` of the regex match, or undefined for plain tags. */
function asMarker(token: string, start: number): Marker | undefined {
  const inner = token.replace(/^<\/?|>$|^\[|\]$/g, '');
  if (!/[A-Za-z]/.test(inner)) return undefined;
  if (token.startsWith('<') && !/[|｜]/.test(token) && !CALL_WORD_RE.test(inner)) return undefined;
  return { start, end: start + token.length, text: token };
}

/** Every special-token-like marker in the text, in order (bounded). */
export function findMarkers(text: string, limit = 4 * DEFAULT_MAX_ENVELOPES): Marker[] {
  const out: Marker[] = [];
  MARKER_RE.lastIndex = 0;
  for (const m of text.matchAll(MARKER_RE)) {
    const marker = asMarker(m[0], m.index);
    if (marker !== undefined) out.push(marker);
    if (out.length >= limit) break;
  }
  return out;
}

/** The words of a marker (`<|tool_call_start|>` → tool, call, start). */
function words(marker: string): Set<string> {
  return new Set(
    marker
      .toLowerCase()
      .split(/[^a-z]+/)
      .filter((w) => w.length > 1),
  );
}

/**
 * A closer belongs to its opener when they share a word (`tool_call_start`/`tool_call_end`,
 * `tools_prefix`/`tools_suffix`).
 */
function pairs(opener: string, closer: string): boolean {
  const mine = words(opener);
  for (const w of words(closer)) if (mine.has(w)) return true;
  return false;
}

type Declared = (name: string) => boolean;

export function declaredIn(tools: ReadonlyMap<string, ToolRef>): Declared {
  return (name) => tools.has(name) || tools.has(cleanToolName(name, (n) => tools.has(n)).name);
}

/**
 * Where the call structure starts inside a marker's `body` (past `call:`), or -1 when no declared tool's call starts
 * there.
 */
export function callStart(text: string, body: Span, declared: Declared): number {
  const { end } = body;
  let pos = skipSpace(text, body.start, end);
  PREFIX_RE.lastIndex = pos;
  const prefix = PREFIX_RE.exec(text);
  if (prefix !== null && declared(nameAt(text, pos + prefix[0].length, end))) pos += prefix[0].length;
  const c = text.charAt(pos);
  if (c === '[' || c === '{') {
    // A list or an object: it must name a declared tool near its start (as a key, a "name" value, or a call).
    ANY_NAME_RE.lastIndex = pos;
    const stop = Math.min(end, pos + NAME_WINDOW);
    for (let m = ANY_NAME_RE.exec(text); m !== null && m.index < stop; m = ANY_NAME_RE.exec(text))
      if (declared(m[0])) return pos;
    return -1;
  }
  const name = nameAt(text, pos, end);
  if (name === '' || !declared(name)) return -1;
  const after = skipSpace(text, pos + name.length, end);
  const next = text.charAt(after);
  // The name alone (a call without arguments), or followed by an argument opener.
  return after >= end || '({<[:'.includes(next) ? pos : -1;
}

/** Where the call structure starting at `start` closes (its outer bracket), or `limit` when it does not. */
function structureEnd(text: string, start: number, limit: number): number {
  let open = start;
  if (text.charAt(open) !== '[' && text.charAt(open) !== '{') {
    open = skipSpace(text, start + nameAt(text, start, limit).length, limit);
    if (text.charAt(open) === ':') open = skipSpace(text, open + 1, limit);
  }
  if (!'[{('.includes(text.charAt(open)) || open >= limit) return limit;
  const balanced = scanBalanced(text, { start: open, end: limit });
  return balanced.closed ? balanced.end : limit;
}

function nameAt(text: string, pos: number, end: number): string {
  NAME_RE.lastIndex = pos;
  const m = NAME_RE.exec(text);
  return m === null || m.index !== pos || m.index + m[0].length > end ? '' : m[0];
}

/**
 * Envelopes of unknown special-token markers around a declared tool's call.
 * The body runs to the next marker (the closer, taken with the envelope when
 * it shares a word with the opener) or to the end of the text.
 */
export function findSpecialEnvelopes(text: string, tools: ReadonlyMap<string, ToolRef>): Envelope[] {
  if (tools.size === 0) return [];
  const declared = declaredIn(tools);
  const markers = findMarkers(text);
  const out: Envelope[] = [];
  for (let i = 0; i < markers.length && out.length < DEFAULT_MAX_ENVELOPES; i += 1) {
    const opener = markers[i];
    if (opener === undefined) continue;
    const next = markers[i + 1];
    const bodyEnd = next?.start ?? text.length;
    // A closer (`</…>`, `…_end|>`, `…suffix|>`) ends a call; it never opens one.
    if (CLOSER_WORD_RE.test(opener.text) || opener.text.startsWith('</') || LISTED.has(opener.text)) continue;
    const start = callStart(text, { start: opener.end, end: bodyEnd }, declared);
    if (start < 0) continue;
    const closer = next !== undefined && pairs(opener.text, next.text) ? next : undefined;
    if (closer !== undefined) i += 1;
    // Without a closer the call ends where its structure closes: prose after it stays content.
    const end = closer === undefined ? structureEnd(text, start, bodyEnd) : bodyEnd;
    const span = { start: opener.start, end: closer?.end ?? end };
    const cut = closer === undefined && next === undefined && end === text.length;
    out.push({
      family: 'special_tokens',
      span,
      strong: true,
      payloads: [{ kind: 'sniffed', span: { start, end }, opener: opener.text, cut }],
      unclosed: closer === undefined,
      repairs: ['unknown_envelope'],
    });
  }
  return out;
}

const MARKER_AT_RE = new RegExp(MARKER_RE.source, 'y');
/** What may still grow into a marker: `<`, `<|tool_ca`, `[TOOL_` with no blank and no end yet. */
const MARKER_SO_FAR_RE = /(?:<\/?[|｜]?[^\s<>[\]]{0,48}|\[[A-Z_]{0,32})$/y;

/**
 * For the stream filter: whether a special-token-like marker that may open
 * an unknown envelope starts at `pos` ('full': hold the rest of the turn, the
 * whole reply decides), may still be written ('partial': wait), or not.
 */
export function specialMarkerHold(text: string, pos: number, declaredCount: number): 'full' | 'partial' | 'none' {
  if (declaredCount === 0) return 'none';
  MARKER_AT_RE.lastIndex = pos;
  const m = MARKER_AT_RE.exec(text);
  if (m !== null) {
    const marker = asMarker(m[0], pos);
    return marker !== undefined && !CLOSER_WORD_RE.test(marker.text) && !marker.text.startsWith('</') ? 'full' : 'none';
  }
  MARKER_SO_FAR_RE.lastIndex = pos;
  return MARKER_SO_FAR_RE.test(text) ? 'partial' : 'none';
}

/** `first` unless it is 'none', then what `next` says. */
export function orElse(
  first: 'full' | 'partial' | 'none',
  next: () => 'full' | 'partial' | 'none',
): 'full' | 'partial' | 'none' {
  return first === 'none' ? next() : first;
}
