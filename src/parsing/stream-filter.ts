import { extractDetailed } from './extract-tool-calls.ts';
import { TOKEN_STREAM_MARKERS } from './envelopes/token-finders.ts';
import { tagAt } from './envelopes/xml-grammar.ts';
import { XML_STREAM_MARKERS } from './envelopes/xml-finders.ts';
import { BracketTracker } from './scanner.ts';
import type { CallFormat } from './formats/call-format.ts';
import { formatStreamMarkers } from './formats/find-format-calls.ts';
import type { Span, ToolRef } from './types.ts';
import { shapeLineHold } from './shapes/stream-hold.ts';
import { orElse, specialMarkerHold } from './shapes/special-envelope.ts';

/**
 * Decides, while a reply streams in, which text can be shown now. Text that
 * cannot be part of a call passes through at once. A possible envelope start
 * is held until it resolves: a partial marker (`<tool_`) waits for the next
 * characters; a complete marker (`<tool_call>`, `[TOOL_CALLS]`…) holds the
 * rest of the turn; a `{…}`, `[…]` or fenced block is held until it closes,
 * then shown if, read on its own, it holds no call. `end()` returns what was
 * held, minus the calls and failed call attempts extractToolCalls finds in
 * the whole reply.
 *
 * Contract: the concatenation of all outputs does not depend on how the text
 * was split into deltas, never contains a byte of a call, and equals the input
 * when the reply holds no call. Each delta is read once (no re-reading of the
 * text so far), so a long reply in many small deltas stays linear.
 */

export interface StreamFilterOptions {
  /** Tools on offer (default none: every call-shaped block is then held and removed). */
  tools?: readonly (ToolRef | string)[];
  /** Formats given as data (as for extractToolCalls): their openers and inner markers are held back too. */
  formats?: readonly CallFormat[];
}

export interface StreamFilter {
  /** Adds a delta; returns the text that is safe to show now. */
  push(delta: string): string;
  /** The turn ended: returns the rest of the text that is not a call. */
  end(): string;
}

/** Tokens that start a call in some model's syntax: once complete, the rest of the turn is held. */
const MARKERS = [...XML_STREAM_MARKERS, ...TOKEN_STREAM_MARKERS];
/** Markers that count only at the start of a line (seed 003's `tool:name {…}`). */
const LINE_MARKERS = [...MARKERS, 'tool:', 'to=', ' to='];
/**
 * A tool name at the start of a line can be a call whose opener the serving
 * stack ate: Mistral `name[ARGS]{…}`, Harmony `name<|channel|>…`, GLM `name`
 * alone on its line before `<arg_key>`. Such a name is held until what
 * follows it shows whether it is one.
 */
const NAME_RE = /[\w.\-:]/;
/** Mid-line, a word `to=` is a Harmony recipient (`assistant to=functions.x`, `to=browser.search`). */
const RECIPIENT_MARKERS = ['to='];
const MAX_HELD_NAME = 128;
const AFTER_NAME_MARKERS = ['[ARGS]', '[CALL_ID]', ...MARKERS];
const NEXT_LINE_MARKERS = ['<arg_key>', ...MARKERS];
const CALL_CHAR_RE = /["'(]/;
/**
 * What a fenced block needs to hold to be (part of) a call read on its own: call syntax, a
 * call-fence info word (```tool_code, ```function_call), a `tool:`/`to=` line. A block with
 * none of it (and no declared name) is shown without running the extractor on it.
 */
const FENCE_CALL_RE = /[{}[\]()<>"'|｜=:]|tool|function|call/i;
const FENCE_CLOSE_RE = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;

type Match = 'full' | 'partial' | 'none';

/** How far a tag's head may run before its `>`: past that, `<` starts no tag. */
const MAX_TAG_WAIT = 320;

/**
 * A tag of the XML-like families at `pos`, in any spelling the grammar reads
 * (namespaced, `｜DSML｜`, `<function=…>`, `<parameter name=…>`): 'full' when
 * the tag is complete, 'partial' while its `>` may still come.
 */
function matchTag(window: string, pos: number): Match {
  const tag = tagAt(window, pos);
  if (tag !== undefined) return tag.sentinel ? 'none' : 'full';
  const next = window.charAt(pos + 1);
  if (next !== '' && !/[A-Za-z_/|｜]/.test(next)) return 'none';
  return window.indexOf('>', pos) < 0 && window.length - pos < MAX_TAG_WAIT ? 'partial' : 'none';
}

/** The first characters of each marker list, so most positions are ruled out by one lookup. */
const FIRST_CHARS = new WeakMap<readonly string[], Set<string>>();

function firstChars(markers: readonly string[]): Set<string> {
  let set = FIRST_CHARS.get(markers);
  if (set === undefined) {
    set = new Set(markers.map((marker) => marker.charAt(0)));
    FIRST_CHARS.set(markers, set);
  }
  return set;
}

function matchMarker(window: string, pos: number, markers: readonly string[]): Match {
  const c = window.charAt(pos);
  if (c === '<') {
    const tag = matchTag(window, pos);
    if (tag !== 'none') return tag;
  }
  if (c !== '' && !firstChars(markers).has(c)) return 'none';
  let partial = false;
  for (const marker of markers) {
    if (window.length - pos >= marker.length) {
      if (window.startsWith(marker, pos)) return 'full';
    } else if (marker.startsWith(window.slice(pos))) partial = true;
  }
  return partial ? 'partial' : 'none';
}

/** Whether the name starting a line at `i` is the start of a call ('full'), may be ('partial': wait), or is not. */
function nameAtLineStart(text: string, i: number, replyStart: boolean): Match {
  let j = i;
  while (j < text.length && j - i <= MAX_HELD_NAME && NAME_RE.test(text.charAt(j))) j += 1;
  if (j - i > MAX_HELD_NAME) return 'none';
  if (j === text.length) return 'partial';
  const next = text.charAt(j);
  if (next === '[' || next === '<') return matchMarker(text, j, AFTER_NAME_MARKERS);
  // A reply that starts with `name(` may be nothing but bare calls: held to the end.
  if (next === '(' && replyStart) return 'full';
  if (next === '\n') return j + 1 === text.length ? 'partial' : matchMarker(text, j + 1, NEXT_LINE_MARKERS);
  return 'none';
}

interface FenceState {
  kind: 'fence';
  parts: string[];
  /** The opening run (``` or longer); grows while `opening`. */
  marker: string;
  opening: boolean;
  firstLine: boolean;
  /** The current line so far (after the opener on the first line). */
  line: string;
}

type Mode =
  { kind: 'text' } | { kind: 'held' } | { kind: 'region'; parts: string[]; tracker: BracketTracker } | FenceState;

/** Outcome of scanning text-mode input: what to show, and input left for the next mode. */
interface TextStep {
  out: string;
  rest: string;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export function createStreamFilter(options: StreamFilterOptions = {}): StreamFilter {
  const tools = options.tools ?? [];
  const formats = options.formats ?? [];
  const formatMarkers = formatStreamMarkers(formats);
  const formatFirstChars = new Set(formatMarkers.map((marker) => marker.charAt(0)));
  const names = tools.map((tool) => (typeof tool === 'string' ? tool : tool.name)).filter((name) => name !== '');
  const declaredNames = new Set(names);
  /** Whether `block` names a tool on offer (with none on offer, any `"name"` key counts). */
  const mentionsTool = (block: string): boolean =>
    names.length === 0 ? block.includes('"name"') : names.some((name) => block.includes(name));
  const all: string[] = [];
  let emitted = 0;
  let mode: Mode = { kind: 'text' };
  /** Text mode: undecided text, starting right after the emitted text. */
  let window = '';
  let previous = '\n';
  /** Everything shown since the last line break is spaces or tabs (a name there still starts the line). */
  let indentOnly = true;
  /** Something other than whitespace was shown: the reply is not only bare calls. */
  let shownText = false;
  const tracker = new BracketTracker();

  /** What extraction takes out of `text`; everything when it fails (holding back is the safe side). */
  const removedSpans = (text: string): Span[] => {
    try {
      return extractDetailed(text, { tools, formats }).removed;
    } catch {
      return [{ start: 0, end: text.length }];
    }
  };

  const isCall = (block: string, bracketed: boolean): boolean => {
    if ((block.includes('<') || block.includes('[')) && MARKERS.some((marker) => block.includes(marker))) return true;
    if (formatMarkers.some((marker) => block.includes(marker))) return true;
    if (!bracketed && !FENCE_CALL_RE.test(block) && !mentionsTool(block)) return false;
    // A fence opened inside a bracketed block runs past it (```tool_code…): what follows decides.
    if (bracketed && (block.includes('```') || block.includes('~~~'))) return true;
    // A tag of a call family inside the block may be the start of a call that runs past it.
    for (let at = block.indexOf('<'); at >= 0; at = block.indexOf('<', at + 1))
      if (matchTag(block, at) === 'full') return true;
    // Every other call syntax has a quote or a parenthesis; `{b}` and `[1]` are prose. A
    // fenced block is read whole: a ```tool_code block without a call is a failed attempt.
    if (bracketed && !CALL_CHAR_RE.test(block)) return false;
    if (removedSpans(block).length > 0) return true;
    // Broken quoting moves where a block seems to close (`{"name"me": "get_weather", …`): a
    // call may start inside it and run past it. A block that is not JSON and names a tool
    // is held; the whole reply decides at the end.
    return bracketed && mentionsTool(block) && !isJson(block);
  };

  const show = (text: string): string => {
    emitted += text.length;
    if (!shownText && text.trim() !== '') shownText = true;
    if (text !== '') previous = text.charAt(text.length - 1);
    const lastBreak = text.lastIndexOf('\n');
    indentOnly = (lastBreak >= 0 || indentOnly) && /^[ \t]*$/.test(text.slice(lastBreak + 1));
    return text;
  };

  /**
   * From `at` on, `text` is held: until more comes ('partial'), or for the rest of the turn ('full'). What precedes it
   * is shown.
   */
  const holdFrom = (text: string, at: number, hold: 'full' | 'partial'): TextStep => {
    window = hold === 'partial' ? text.slice(at) : '';
    const out = show(text.slice(0, at));
    if (hold === 'full') mode = { kind: 'held' };
    return { out, rest: '' };
  };

  /** A held block closed: show it unless it is a call, then carry on with `rest`. */
  const settle = (block: string, rest: string, bracketed = false): TextStep => {
    if (isCall(block, bracketed)) {
      mode = { kind: 'held' };
      return { out: '', rest: '' };
    }
    mode = { kind: 'text' };
    return { out: show(block), rest };
  };

  const scanText = (input: string): TextStep => {
    window += input;
    const text = window;
    let indented = indentOnly;
    /** Whether the current line was already asked whether it may be a shape (once a line, at its start). */
    let shapeAsked = false;
    for (let i = 0; i < text.length; i += 1) {
      const c = text.charAt(i);
      const lineStart = (i === 0 ? previous : text.charAt(i - 1)) === '\n';
      // GLM's name may follow a tag (`…>get_weather\n<arg_key>`) as well as start a line.
      const afterTag = (i === 0 ? previous : text.charAt(i - 1)) === '>';
      // An indented name still starts its line (`  get_weather[ARGS]{…}`).
      const nameStart = lineStart || afterTag || indented;
      indented = c === '\n' || (indented && (c === ' ' || c === '\t'));
      if (lineStart) shapeAsked = false;
      // A line that may be a shape without a family (`Action: get_weather`, `<get_weather>`) waits for the name.
      if (nameStart && !afterTag && !shapeAsked && declaredNames.size > 0) {
        shapeAsked = true;
        const shape = shapeLineHold(text, i, declaredNames);
        if (shape !== 'none') return holdFrom(text, i, shape);
      }
      if (nameStart && NAME_RE.test(c)) {
        const held = nameAtLineStart(text, i, !shownText && text.slice(0, i).trim() === '');
        if (held !== 'none') return holdFrom(text, i, held);
      }
      const prev = i === 0 ? previous : text.charAt(i - 1);
      const recipient = c === 't' && (prev === ' ' || prev === '\t' || prev === '>');
      if (c === '<' || c === '[' || recipient || (lineStart && (c === 't' || c === ' '))) {
        const found = orElse(
          matchMarker(text, i, lineStart ? LINE_MARKERS : recipient ? RECIPIENT_MARKERS : MARKERS),
          () => specialMarkerHold(text, i, declaredNames.size),
        );
        if (found !== 'none') return holdFrom(text, i, found);
      }
      if (formatFirstChars.has(c)) {
        const found = matchMarker(text, i, formatMarkers);
        if (found !== 'none') return holdFrom(text, i, found);
      }
      if (c === '{' || c === '[') {
        window = '';
        const out = show(text.slice(0, i));
        mode = { kind: 'region', parts: [], tracker: tracker.reset() };
        return { out, rest: text.slice(i) };
      }
      if (c === '`' || c === '~') {
        const run = c.repeat(3);
        if (text.length - i < 3 && run.startsWith(text.slice(i))) {
          window = text.slice(i);
          return { out: show(text.slice(0, i)), rest: '' };
        }
        if (text.startsWith(run, i)) {
          window = '';
          const out = show(text.slice(0, i));
          mode = { kind: 'fence', parts: [], marker: '', opening: true, firstLine: true, line: '' };
          return { out, rest: text.slice(i) };
        }
      }
    }
    window = '';
    return { out: show(text), rest: '' };
  };

  const feedRegion = (region: { parts: string[]; tracker: BracketTracker }, input: string): TextStep => {
    const end = region.tracker.feed(input, 0, input.length);
    if (end < 0) {
      region.parts.push(input);
      return { out: '', rest: '' };
    }
    region.parts.push(input.slice(0, end));
    return settle(region.parts.join(''), input.slice(end), true);
  };

  const feedFence = (fence: FenceState, input: string): TextStep => {
    let pos = 0;
    if (fence.opening) {
      // The opener is the whole run of backticks (or tildes), as in findFences.
      const c = fence.marker === '' ? input.charAt(0) : fence.marker.charAt(0);
      while (pos < input.length && input.charAt(pos) === c) pos += 1;
      fence.marker += input.slice(0, pos);
      if (pos === input.length) {
        fence.parts.push(input);
        return { out: '', rest: '' };
      }
      fence.opening = false;
    }
    while (pos < input.length) {
      const newline = input.indexOf('\n', pos);
      const lineEnd = newline < 0 ? input.length : newline;
      if (fence.firstLine) {
        // "```npm test```": the closer on the opening line ends an inline block.
        const overlap = fence.line.slice(1 - fence.marker.length);
        const inline = (overlap + input.slice(pos, lineEnd)).indexOf(fence.marker);
        if (inline >= 0) {
          const end = pos + inline - overlap.length + fence.marker.length;
          fence.parts.push(input.slice(0, end));
          return settle(fence.parts.join(''), input.slice(end));
        }
      }
      fence.line += input.slice(pos, lineEnd);
      if (newline < 0) break;
      const line = fence.line;
      const close = FENCE_CLOSE_RE.exec(line);
      const closes =
        !fence.firstLine &&
        (close === null
          ? line.trim().length > fence.marker.length && line.trimEnd().endsWith(fence.marker)
          : close[1] !== undefined && close[1].startsWith(fence.marker));
      fence.line = '';
      fence.firstLine = false;
      if (closes) {
        fence.parts.push(input.slice(0, newline));
        return settle(fence.parts.join(''), input.slice(newline));
      }
      pos = newline + 1;
    }
    fence.parts.push(input);
    return { out: '', rest: '' };
  };

  return {
    push(delta: string): string {
      all.push(delta);
      let out = '';
      let input = delta;
      // Each pass consumes input in one mode; a block that closes hands the rest to text mode.
      while (input !== '' && mode.kind !== 'held') {
        let step: TextStep;
        if (mode.kind === 'text') step = scanText(input);
        else if (mode.kind === 'region') step = feedRegion(mode, input);
        else step = feedFence(mode, input);
        out += step.out;
        input = step.rest;
      }
      return out;
    },
    end(): string {
      const text = all.join('');
      if (emitted >= text.length) return '';
      const removed = removedSpans(text);
      let out = '';
      let pos = emitted;
      for (const span of [...removed].sort((a, b) => a.start - b.start)) {
        if (span.end <= pos) continue;
        if (span.start > pos) out += text.slice(pos, span.start);
        pos = Math.max(pos, span.end);
      }
      out += text.slice(pos);
      emitted = text.length;
      mode = { kind: 'held' };
      return out;
    },
  };
}
