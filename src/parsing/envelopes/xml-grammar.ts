import { DEFAULT_MAX_ENVELOPES, indexInTagHead, makeFinder } from './envelope.ts';
import { LEAKED_SENTINELS, XML_BLOCK_NAMES, XML_LOCAL_NAMES } from './xml-families.ts';

/**
 * The lexer of the XML-like call families: one pass over the text turns
 * every tag whose local name one of the families uses (xml-families.ts) into
 * a Tag; every other `<` is text. Tag heads are bounded, so a text full of
 * `<` costs one pass.
 */

export interface Tag {
  start: number;
  end: number;
  closing: boolean;
  /** As written: '', `minimax:`, `｜DSML｜`… */
  ns: string;
  /** `tool_call`, `invoke`, `parameter`, `|tool_call|`…; the token itself for a sentinel. */
  local: string;
  /** What stands between the local name and `>`: `=NAME`, ` name="x" string="true"`. */
  head: string;
  /** A closer without its `>` (`</tool_call` then a line break). */
  broken: boolean;
  sentinel: boolean;
}

/** More tags than any reply holds: the lexer stops there. */
const MAX_TAGS = 64 * DEFAULT_MAX_ENVELOPES;

/** Optional namespace (`prefix:` or `｜NS｜`), then a local name. */
const TAG_NAME_RE = /([A-Za-z_][\w-]{0,39}:|[｜|][A-Za-z]{1,20}[｜|])?([A-Za-z_]{1,24})/y;

function sentinelAt(text: string, pos: number): string | undefined {
  for (const sentinel of LEAKED_SENTINELS) if (text.startsWith(sentinel, pos)) return sentinel;
  return undefined;
}

/** Granite's and Phi-4-mini's special tokens are whole tokens, not tags with a namespace. */
function specialAt(text: string, pos: number): Tag | undefined {
  if (text.startsWith('<|tool_call|>', pos))
    return {
      start: pos,
      end: pos + 13,
      closing: false,
      ns: '',
      local: '|tool_call|',
      head: '',
      broken: false,
      sentinel: false,
    };
  if (text.startsWith('<|/tool_call|>', pos))
    return {
      start: pos,
      end: pos + 14,
      closing: true,
      ns: '',
      local: '|tool_call|',
      head: '',
      broken: false,
      sentinel: false,
    };
  return undefined;
}

/** The tag at `pos` (which holds `<` or `[`), or undefined. */
export function tagAt(text: string, pos: number): Tag | undefined {
  const next = text.charAt(pos + 1);
  if (next === '|' || next === '｜' || next === '/' || next === 'e' || text.charAt(pos) === '[') {
    const sentinel = sentinelAt(text, pos);
    if (sentinel !== undefined)
      return {
        start: pos,
        end: pos + sentinel.length,
        closing: false,
        ns: '',
        local: sentinel,
        head: '',
        broken: false,
        sentinel: true,
      };
  }
  if (text.charAt(pos) !== '<') return undefined;
  const special = specialAt(text, pos);
  if (special !== undefined) return special;
  const closing = next === '/';
  TAG_NAME_RE.lastIndex = pos + (closing ? 2 : 1);
  const match = TAG_NAME_RE.exec(text);
  if (match === null) return undefined;
  const ns = match[1] ?? '';
  const local = match[2] ?? '';
  if (!XML_LOCAL_NAMES.has(local)) return undefined;
  const after = TAG_NAME_RE.lastIndex;
  const c = text.charAt(after);
  if (closing) {
    if (c === '>') return { start: pos, end: after + 1, closing, ns, local, head: '', broken: false, sentinel: false };
    // `</tool_call` with its `>` lost: only where nothing else could follow the name.
    if (c === '' || c === '<' || /\s/.test(c))
      return { start: pos, end: after, closing, ns, local, head: '', broken: true, sentinel: false };
    return undefined;
  }
  if (c !== '>' && c !== '=' && !/\s/.test(c)) return undefined;
  if (c === '=' && local !== 'function' && local !== 'parameter') return undefined;
  const gt = c === '>' ? after : indexInTagHead(text, '>', after);
  if (gt < 0) return undefined;
  const head = text.slice(after, gt);
  // A block or argument tag carries no attributes; a line break in a head means prose, not a tag.
  if ((XML_BLOCK_NAMES.has(local) || local.startsWith('arg_')) && head.trim() !== '') return undefined;
  if (head.includes('\n') && local !== 'invoke' && local !== 'parameter') return undefined;
  // `<parameter>` with no key is HTML-ish text, not an argument.
  if (local === 'parameter' && head.trim() === '') return undefined;
  return { start: pos, end: gt + 1, closing, ns, local, head, broken: false, sentinel: false };
}

/** Every tag of the text, in order (at most MAX_TAGS). */
export function lexTags(text: string, from = 0, to = text.length): Tag[] {
  const tags: Tag[] = [];
  const findLt = makeFinder(text, '<');
  const findBracket = makeFinder(text, '[e~[');
  let pos = from;
  while (pos < to && tags.length < MAX_TAGS) {
    const lt = findLt(pos);
    const bracket = findBracket(pos);
    const at = lt < 0 ? bracket : bracket < 0 ? lt : Math.min(lt, bracket);
    if (at < 0 || at >= to) break;
    const tag = tagAt(text, at);
    if (tag !== undefined && tag.end <= to) {
      tags.push(tag);
      pos = tag.end;
    } else pos = at + 1;
  }
  return tags;
}

/** `name="x"`, `name='x'` or `name=x` inside a tag's attribute text. */
const ATTRIBUTE_RES = new Map<string, RegExp>();

export function attributeValue(attributes: string, attribute: string): string | undefined {
  let re = ATTRIBUTE_RES.get(attribute);
  if (re === undefined) {
    re = new RegExp(`(?:^|\\s)${attribute}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>"']+))`);
    ATTRIBUTE_RES.set(attribute, re);
  }
  const match = re.exec(attributes);
  if (match === null) return undefined;
  return (match[1] ?? match[2] ?? match[3] ?? '').trim();
}

/** The name in `=NAME` (`<function=NAME>`, `<parameter=KEY>`), without quotes. */
export function equalsName(head: string): string {
  return head
    .replace(/^=/, '')
    .trim()
    .replace(/^["']|["']$/g, '')
    .trim();
}

/** Index of the first tag starting at or after `pos` (binary search). */
export function tagIndexAt(tags: readonly Tag[], pos: number): number {
  let lo = 0;
  let hi = tags.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((tags[mid]?.start ?? Infinity) < pos) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
