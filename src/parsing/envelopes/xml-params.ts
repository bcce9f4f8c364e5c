import type { JsonObject, JsonValue } from '../../core/json.ts';
import { setJsonKey } from '../../core/set-json-key.ts';
import { parseLenient } from '../lenient-json.ts';
import type { RepairKind } from '../types.ts';
import { skipSpace } from './envelope.ts';
import type { Finders } from './envelope.ts';
import { GLM_KEY, GLM_VALUE, LEAKED_SENTINELS, PARAMETER, TYPING_ATTRIBUTES } from './xml-families.ts';
import { unreadText } from './unread-text.ts';
import { attributeValue, equalsName, lexTags } from './xml-grammar.ts';
import type { Tag } from './xml-grammar.ts';

export { attributeValue } from './xml-grammar.ts';

/**
 * Argument tags of the XML-like call formats: `<parameter=k>v</parameter>`
 * (Qwen3-Coder), `<parameter name="k" string="…">v</parameter>` (MiniMax,
 * DeepSeek V3.2, Anthropic-style), `<arg_key>k</arg_key><arg_value>v</arg_value>`
 * (GLM-4.5), and a parameter written as its own tag (`<city>Paris</city>`).
 * Values are text, or JSON when they read as strict JSON; schema-guided
 * coercion happens later (src/validation/).
 */

export interface XmlArgs {
  args: JsonObject;
  /** A value was still open when the text ended. */
  reachesEnd: boolean;
}

export interface ArgsRead extends XmlArgs {
  repairs: Set<RepairKind>;
  /** A key without its value, or a key tag not closed: where, and what was expected there. */
  unpaired?: { position: number; expected: string };
  /** The argument tags read (their namespaces are checked against the family). */
  tags: Tag[];
  count: number;
}

/** Drops one layout line break on each side: the templates put values on their own lines. */
function unlayout(raw: string): string {
  let value = raw;
  if (value.startsWith('\r\n')) value = value.slice(2);
  else if (value.startsWith('\n')) value = value.slice(1);
  if (value.endsWith('\r\n')) value = value.slice(0, -2);
  else if (value.endsWith('\n')) value = value.slice(0, -1);
  return value;
}

function strictJson(trimmed: string): { ok: true; value: JsonValue } | { ok: false } {
  if (trimmed === '') return { ok: false };
  const parsed = parseLenient(trimmed, { allowCloseAtEnd: false });
  return parsed.ok && parsed.repairs.length === 0 ? { ok: true, value: parsed.value } : { ok: false };
}

/**
 * A value is JSON when it parses as strict JSON (numbers, booleans, objects…),
 * else the text itself: "Paris" stays text, "3" becomes 3, "007" stays text.
 */
export function xmlValue(raw: string): JsonValue {
  const value = unlayout(raw);
  const trimmed = value.trim();
  if (/^[-\d[{"tfn]/.test(trimmed)) {
    const parsed = strictJson(trimmed);
    if (parsed.ok) return parsed.value;
  }
  return value;
}

/** A value read under its tag's typing attribute (`string="true"` keeps text, `string="false"` reads JSON). */
export function typedValue(raw: string, head: string): JsonValue {
  for (const typing of TYPING_ATTRIBUTES) {
    const said = attributeValue(head, typing.attribute);
    if (said === typing.text) return unlayout(raw);
    if (said === typing.json) {
      const parsed = strictJson(raw.trim());
      return parsed.ok ? parsed.value : unlayout(raw);
    }
  }
  return xmlValue(raw);
}

interface ValueEnd {
  /** Where the value's text ends (before a leaked sentinel). */
  textEnd: number;
  /** Index of the tag after the value (past its closer when closed). */
  next: number;
  closed: boolean;
  reachesEnd: boolean;
}

/** Reads from tag `i + 1` to the value's closer `local`; any other tag (but a sentinel) ends it unclosed. */
function valueEnd(
  text: string,
  tags: readonly Tag[],
  where: { i: number; end: number; local: string; read: ArgsRead },
): ValueEnd {
  const { end, local, read } = where;
  let sentinel = -1;
  let j = where.i + 1;
  for (; j < tags.length; j += 1) {
    const tag = tags[j];
    if (tag === undefined || tag.start >= end) break;
    if (tag.sentinel) {
      if (sentinel < 0) sentinel = tag.start;
      continue;
    }
    if (sentinel >= 0) read.repairs.add('leaked_sentinel');
    const closed = tag.closing && tag.local === local;
    if (closed) {
      read.tags.push(tag);
      if (tag.broken) read.repairs.add('broken_closer');
    } else read.repairs.add('missing_closer');
    return { textEnd: sentinel >= 0 ? sentinel : tag.start, next: closed ? j + 1 : j, closed, reachesEnd: false };
  }
  if (sentinel >= 0) read.repairs.add('leaked_sentinel');
  const reachesEnd = sentinel < 0 && end === text.length;
  read.repairs.add('missing_closer');
  return { textEnd: sentinel >= 0 ? sentinel : end, next: j, closed: false, reachesEnd };
}

function emptyRead(): ArgsRead {
  return { args: {}, reachesEnd: false, repairs: new Set(), tags: [], count: 0 };
}

const PARAMETER_EXPECTED = '<parameter=NAME>value</parameter> for each argument';
/** A value whose closer was missing but which ends in a closer-like tag: the closer was misspelled (`</paramter>`). */
const MISSPELLED_CLOSER_RE = /<\/[A-Za-z_][\w:-]{0,40}>?\s*$/;

/**
 * `<parameter=k>` / `<parameter name="k">` tags from tag `from` up to offset
 * `end`. A `</parameter>` doubled right after a closer is a slip
 * (`repaired_argument_markup`); any other stray closer, a parameter without
 * a name, a value ending in a misspelled closer and, from `gapsFrom` on,
 * text between the parameters are `unpaired`: never dropped.
 */
export function readParameterTags(
  text: string,
  tags: readonly Tag[],
  range: { from: number; end: number; gapsFrom?: number },
): ArgsRead {
  const read = emptyRead();
  const fail = (position: number, expected: string): void => {
    read.unpaired ??= { position, expected };
  };
  let gap = range.gapsFrom;
  const checkGap = (to: number): void => {
    if (gap === undefined) return;
    const at = unreadText(text, gap, to);
    if (at >= 0) fail(at, `${PARAMETER_EXPECTED}, not text between them`);
  };
  let lastCloserEnd = -1;
  let i = range.from;
  while (i < tags.length) {
    const tag = tags[i];
    if (tag === undefined || tag.start >= range.end) break;
    if (tag.local !== PARAMETER) {
      i += 1;
      continue;
    }
    if (tag.closing) {
      checkGap(tag.start);
      // `…</parameter></parameter>`: the doubled closer, with nothing between, is a slip.
      if (lastCloserEnd >= 0 && text.slice(lastCloserEnd, tag.start).trim() === '') {
        read.tags.push(tag);
        read.repairs.add('repaired_argument_markup');
        lastCloserEnd = tag.end;
        if (gap !== undefined) gap = tag.end;
      } else fail(tag.start, `<parameter=NAME> before the value that </parameter> closes`);
      i += 1;
      continue;
    }
    checkGap(tag.start);
    read.tags.push(tag);
    const key = tag.head.startsWith('=') ? equalsName(tag.head) : attributeValue(tag.head, 'name');
    const value = valueEnd(text, tags, { i, end: range.end, local: PARAMETER, read });
    if (value.reachesEnd) read.reachesEnd = true;
    const raw = text.slice(tag.end, value.textEnd);
    if (key === undefined || key === '')
      fail(tag.start, 'a parameter name: <parameter=NAME> or <parameter name="NAME">');
    else {
      if (!value.closed && !value.reachesEnd && MISSPELLED_CLOSER_RE.test(raw))
        fail(tag.end + raw.search(MISSPELLED_CLOSER_RE), `</parameter> to close "${key}" (its closer is misspelled)`);
      setJsonKey(read.args, key, typedValue(raw, tag.head));
      read.count += 1;
    }
    lastCloserEnd = value.closed ? (tags[value.next - 1]?.end ?? value.textEnd) : -1;
    if (gap !== undefined) gap = value.closed ? lastCloserEnd : value.textEnd;
    i = value.next;
  }
  if (!read.reachesEnd) checkGap(range.end);
  return read;
}

/**
 * GLM-4.5 `<arg_key>k</arg_key><arg_value>v</arg_value>` pairs. Certain slips
 * are repaired (`repaired_argument_markup`): a doubled `</arg_key>`, and a
 * value whose `<arg_value>` opener is missing but whose `</arg_value>` closes
 * it. A key with no value at all is never skipped: `unpaired` says where.
 */
export function readGlmPairs(text: string, tags: readonly Tag[], range: { from: number; end: number }): ArgsRead {
  const read = emptyRead();
  const within = (k: number): Tag | undefined => {
    const t = tags[k];
    return t !== undefined && t.start < range.end ? t : undefined;
  };
  let i = range.from;
  while (i < tags.length) {
    const tag = within(i);
    if (tag === undefined) break;
    if (tag.local !== GLM_KEY || tag.closing) {
      i += 1;
      continue;
    }
    const keyClose = within(i + 1);
    if (keyClose === undefined || keyClose.local !== GLM_KEY || !keyClose.closing) {
      if (keyClose === undefined) read.reachesEnd = range.end === text.length;
      else read.unpaired ??= { position: keyClose.start, expected: '</arg_key> after the key' };
      break;
    }
    read.tags.push(tag, keyClose);
    const key = text.slice(tag.end, keyClose.start).trim();
    let k = i + 2;
    // `<arg_key>path</arg_key></arg_key>`: the doubled closer, with nothing between, is a slip.
    for (
      let extra = within(k);
      extra?.local === GLM_KEY &&
      extra.closing &&
      text.slice(tags[k - 1]?.end ?? extra.start, extra.start).trim() === '';
      extra = within(k)
    ) {
      read.tags.push(extra);
      read.repairs.add('repaired_argument_markup');
      k += 1;
    }
    const open = within(k);
    if (open !== undefined && open.local === GLM_VALUE && open.closing) {
      // `<arg_key>q</arg_key>how many…</arg_value>`: the opener is missing, the closer says where the value ends.
      read.tags.push(open);
      read.repairs.add('repaired_argument_markup');
      if (key !== '') {
        setJsonKey(read.args, key, xmlValue(text.slice(tags[k - 1]?.end ?? open.start, open.start)));
        read.count += 1;
      }
      i = k + 1;
      continue;
    }
    if (open === undefined || open.local !== GLM_VALUE || open.closing) {
      if (open === undefined) read.reachesEnd = range.end === text.length;
      read.unpaired ??= {
        position: open?.start ?? tags[k - 1]?.end ?? range.end,
        expected: `<arg_value>…</arg_value> with the value of "${key}"`,
      };
      if (open === undefined) break;
      i = k;
      continue;
    }
    read.tags.push(open);
    const value = valueEnd(text, tags, { i: k, end: range.end, local: GLM_VALUE, read });
    if (value.reachesEnd) read.reachesEnd = true;
    if (key !== '') {
      setJsonKey(read.args, key, xmlValue(text.slice(open.end, value.textEnd)));
      read.count += 1;
    }
    i = value.next;
  }
  return read;
}

const CHILD_RE = /<([A-Za-z_][\w.-]{0,63})>/y;

/** A value's trailing leaked sentinel, if any. */
function withoutSentinel(value: string, read: ArgsRead): string {
  const trimmed = value.trimEnd();
  const sentinel = LEAKED_SENTINELS.find((s) => trimmed.endsWith(s));
  if (sentinel === undefined) return value;
  read.repairs.add('leaked_sentinel');
  return trimmed.slice(0, -sentinel.length);
}

/**
 * Parameters written as their own tags inside a call element
 * (`<invoke name="x"><city>Paris</city></invoke>`). Stops at the first
 * child that does not close: each closer is searched for once.
 */
export function readChildTags(text: string, range: { start: number; end: number }): ArgsRead & { consumed: number } {
  const read = emptyRead();
  let pos = skipSpace(text, range.start, range.end);
  while (pos < range.end) {
    CHILD_RE.lastIndex = pos;
    const match = CHILD_RE.exec(text);
    const name = match?.[1];
    if (match === null || name === undefined) break;
    const valueStart = pos + match[0].length;
    const close = text.indexOf(`</${name}>`, valueStart);
    if (close < 0 || close > range.end) break;
    setJsonKey(read.args, name, xmlValue(withoutSentinel(text.slice(valueStart, close), read)));
    read.count += 1;
    pos = skipSpace(text, close + name.length + 3, range.end);
  }
  return { ...read, consumed: pos };
}

function plain(read: ArgsRead): XmlArgs {
  return { args: read.args, reachesEnd: read.reachesEnd };
}

/** Qwen3-Coder parameters in `range` (the closer is sometimes left out). */
export function parseQwenParameters(text: string, range: { start: number; end: number }, _finders?: Finders): XmlArgs {
  return plain(readParameterTags(text, lexTags(text, range.start, range.end), { from: 0, end: range.end }));
}

/** MiniMax `<parameter name="city">Paris</parameter>` in `range`. */
export function parseMinimaxParameters(
  text: string,
  range: { start: number; end: number },
  _finders?: Finders,
): XmlArgs {
  return plain(readParameterTags(text, lexTags(text, range.start, range.end), { from: 0, end: range.end }));
}

/** GLM-4.5 key/value pairs in `range`. */
export function parseGlmArguments(text: string, range: { start: number; end: number }, _finders?: Finders): XmlArgs {
  return plain(readGlmPairs(text, lexTags(text, range.start, range.end), { from: 0, end: range.end }));
}
