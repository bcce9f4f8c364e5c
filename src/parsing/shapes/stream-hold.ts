import { cleanToolName } from '../tool-names.ts';
import { CALL_VERBS, NAME_RUN_RE, prefixStart } from './read-shapes.ts';

/**
 * For the stream filter: whether the line starting at `lineStart` is (or may
 * still become) the start of a shape without a family — a declared tool's
 * name after nothing, a label, a call verb or stripped tokens, or `<name`.
 * 'full': hold the rest of the turn; 'partial': wait for more text; 'none':
 * the line is prose. Mirrors the call-position rule of read-shapes.ts.
 */

/** A line longer than this before any declared name is a sentence. */
const MAX_UNDECIDED = 96;
const MAX_LABEL_WORDS = 5;
/** The words of a label before its `:` or `=` (read-shapes.ts: at most four). */
const LABEL_SO_FAR_RE = /^[ \t]*[A-Za-z][\w-]*(?:[ \t]+[\w-]+){0,3}$/;
const CALL_VERB_RE = new RegExp(`^(?:${CALL_VERBS.join('|')})$`, 'i');

function namesIn(line: string, names: ReadonlySet<string>): boolean {
  for (const name of names) if (line.includes(name)) return true;
  return false;
}

export function shapeLineHold(
  text: string,
  lineStart: number,
  names: ReadonlySet<string>,
): 'full' | 'partial' | 'none' {
  const declared = (name: string): boolean => names.has(name);
  const newline = text.indexOf('\n', lineStart);
  const end =
    newline < 0 ? Math.min(text.length, lineStart + MAX_UNDECIDED) : Math.min(newline, lineStart + MAX_UNDECIDED);
  const line = text.slice(lineStart, end);
  // A cleaned name is part of what was written: a line that holds no declared name and can
  // no longer grow into one is prose, decided without reading its words (one check a line).
  if ((newline >= 0 || end < text.length) && !namesIn(line, names)) return 'none';
  for (const m of line.matchAll(NAME_RUN_RE)) {
    const runStart = lineStart + m.index;
    const raw = m[0].replace(/[.\-/]+$/, '');
    // The run may still grow (`get_weather` of `get_weather_now`): wait for what follows it.
    if (
      newline < 0 &&
      runStart + m[0].length >= text.length &&
      [...names].some((name) => name.length > raw.length && name.startsWith(raw))
    )
      return 'partial';
    if (!declared(cleanToolName(raw, declared).name)) continue;
    const at = text.charAt(runStart - 1) === '<' ? runStart - 1 : runStart;
    // A label before a declared name, `assistant to=` included, may make the whole line a
    // call (transcript_call): the line is held from its start, so no word of it shows early.
    if (prefixStart(text, lineStart, at) !== undefined) return 'full';
  }
  if (newline >= 0 || end - lineStart >= MAX_UNDECIDED) return 'none';
  // Only words, a label's `:`/`=` and stripped or replaced tokens (`tool_sep`, `<|tool sep|>`) can still lead to a
  // name.
  if (!/^[\w .:=<>|｜[\]\t-]*$/.test(line)) return 'none';
  const words = line.trim().split(/\s+/);
  if (words.length > MAX_LABEL_WORDS) return 'none';
  // Waiting is worth it only for a label or tokens so far, a call verb, or a declared name still being written.
  const last = words.at(-1) ?? '';
  const typingName =
    last !== '' && /\w$/.test(line) && [...names].some((name) => name.startsWith(last.replace(/^[<|｜[]+/, '')));
  // A short line that stopped at a blank, or whose words may still end in a label's `:` or `=`
  // (`assistant t` of `assistant to=get_weather`), may go on into a label: wait for what follows.
  const between = /[ \t]$/.test(line);
  const labelSoFar = LABEL_SO_FAR_RE.test(line);
  return between || labelSoFar || /[:=<|｜[]/.test(line) || CALL_VERB_RE.test(words[0] ?? '') || typingName
    ? 'partial'
    : 'none';
}
