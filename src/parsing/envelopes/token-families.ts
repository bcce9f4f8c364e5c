import type { RepairKind } from '../types.ts';
import type { Payload } from './envelope.ts';

/**
 * The exact special tokens of each token family, in one table, so that a
 * finder matches its own family's tokens and never another's: Kimi's
 * `<|tool_call_begin|>` is not DeepSeek's `<｜tool▁call▁begin｜>`, even though
 * DeepSeek's finder accepts ASCII look-alikes of its fullwidth bars.
 */
export const TOKEN_FAMILIES = {
  deepseek: {
    callsBegin: '<｜tool▁calls▁begin｜>',
    callsEnd: '<｜tool▁calls▁end｜>',
    callBegin: '<｜tool▁call▁begin｜>',
    callEnd: '<｜tool▁call▁end｜>',
    sep: '<｜tool▁sep｜>',
    /** End of the reply; a serving stack that does not stop on it leaves it after the calls. */
    endOfSentence: '<｜end▁of▁sentence｜>',
  },
  kimi: {
    sectionBegin: '<|tool_calls_section_begin|>',
    /** Some chat templates spell the section tokens in the singular. */
    sectionBeginSingular: '<|tool_call_section_begin|>',
    sectionEnd: '<|tool_calls_section_end|>',
    sectionEndSingular: '<|tool_call_section_end|>',
    callBegin: '<|tool_call_begin|>',
    argumentBegin: '<|tool_call_argument_begin|>',
    callEnd: '<|tool_call_end|>',
    endOfTurn: '<|im_end|>',
  },
  harmony: {
    start: '<|start|>',
    channel: '<|channel|>',
    constrain: '<|constrain|>',
    message: '<|message|>',
    call: '<|call|>',
    end: '<|end|>',
    return: '<|return|>',
  },
  mistral: {
    toolCalls: '[TOOL_CALLS]',
    args: '[ARGS]',
    callId: '[CALL_ID]',
    endOfSequence: '</s>',
  },
  llama: {
    pythonTag: '<|python_tag|>',
    endOfMessage: '<|eom_id|>',
    endOfTurn: '<|eot_id|>',
    /** Llama 4 wraps its calls (pythonic or JSON) in these. */
    pythonStart: '<|python_start|>',
    pythonEnd: '<|python_end|>',
    endOfMessage4: '<|eom|>',
    endOfTurn4: '<|eot|>',
  },
  /** Gemma writes calls in fenced blocks; these are the fences' info strings. */
  gemma: {
    callFence: 'tool_code',
    resultFence: 'tool_output',
  },
  minimaxText: {
    open: '[TOOL_CALL]',
    close: '[/TOOL_CALL]',
  },
  /** Read elsewhere (tool-call-tag.ts); listed so no look-alike here takes it. */
  granite: {
    toolCall: '<|tool_call|>',
  },
} as const;

export type TokenFamily = keyof typeof TOKEN_FAMILIES;

/** Every token of every family but `family`: what a lenient matcher of `family` must not take. */
export function foreignTokens(family: TokenFamily): ReadonlySet<string> {
  const out = new Set<string>();
  for (const [name, tokens] of Object.entries(TOKEN_FAMILIES)) {
    if (name !== family) for (const token of Object.values(tokens)) out.add(token);
  }
  return out;
}

/** A token written as inline code (`` `<|tool_call_begin|>` ``): prose documenting it, not a call. */
export function isQuotedToken(text: string, start: number, end: number): boolean {
  return text.charAt(start - 1) === '`' && text.charAt(end) === '`';
}

/** A special token found in the text, by kind. */
export interface FamilyToken<K extends string> {
  kind: K;
  start: number;
  end: number;
}

/** How a family's tokens are found: `re` (global) matches them, `kindOf` names each match, at most `max` are read. */
export interface TokenScan<K extends string> {
  re: RegExp;
  kindOf: (match: RegExpExecArray) => K | undefined;
  max: number;
}

/**
 * A family's tokens in text order: the matches that `kindOf` names, except
 * those written as inline code. Bounded by `max`: a flood of tokens is cut
 * where the envelope cap would cut it anyway.
 */
export function scanTokens<K extends string>(text: string, scan: TokenScan<K>): FamilyToken<K>[] {
  const { re, kindOf, max } = scan;
  const out: FamilyToken<K>[] = [];
  for (const m of text.matchAll(re)) {
    if (out.length >= max) break;
    const end = m.index + m[0].length;
    const kind = kindOf(m);
    if (kind !== undefined && !isQuotedToken(text, m.index, end)) out.push({ kind, start: m.index, end });
  }
  return out;
}

/** The scanner of a family whose tokens are exact spellings, each of one kind (`kinds`: spelling → kind). */
export function tokenScanner<K extends string>(
  kinds: ReadonlyMap<string, K>,
  max: number,
): (text: string) => FamilyToken<K>[] {
  const scan: TokenScan<K> = {
    re: new RegExp(alternation([...kinds.keys()]), 'g'),
    kindOf: (m) => kinds.get(m[0]),
    max,
  };
  return (text) => scanTokens(text, scan);
}

/**
 * The calls of one block of a token family (DeepSeek's calls block, Kimi's
 * section) as they are read, token by token.
 */
export interface TokenBlock {
  start: number;
  end: number;
  /** The block's own opener came (not only a call's). */
  opened: boolean;
  payloads: Payload[];
  repairs: Set<RepairKind>;
  /** The last call had no closer. */
  lastOpen: boolean;
}

/** A block from `start` to `end` with nothing read in it yet. */
export function newTokenBlock(start: number, end: number, opened: boolean): TokenBlock {
  return { start, end, opened, payloads: [], repairs: new Set(), lastOpen: false };
}

/** A regular expression source matching any of `tokens` literally. */
export function alternation(tokens: readonly string[]): string {
  return [...tokens]
    .sort((a, b) => b.length - a.length)
    .map((token) => token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|');
}

/**
 * A closer the model misspelled (`<|tool_call_end|` , `<tool_call_end>`,
 * `|tool_call_end|>`): its core word with at most the bracket characters
 * around it. Returns the end of the broken closer at `pos`, or -1.
 */
export function brokenCloserEnd(text: string, pos: number, closer: string): number {
  // The core keeps a closer's `/`: `[TOOL_CALL]` is MiniMax's opener, not a broken `[/TOOL_CALL]`.
  const core = closer.replace(/^[<[｜|]+|[｜|>\]]+$/g, '');
  let start = pos;
  let lead = 0;
  while (lead < 2 && '<[｜|'.includes(text.charAt(start)) && text.charAt(start) !== '') {
    start += 1;
    lead += 1;
  }
  if (!text.startsWith(core, start)) return -1;
  let end = start + core.length;
  let trail = 0;
  while (trail < 2 && '｜|>]'.includes(text.charAt(end)) && text.charAt(end) !== '') {
    end += 1;
    trail += 1;
  }
  // The exact closer is not broken; a bare word with nothing around it is prose.
  if (text.slice(pos, end) === closer || lead + trail === 0) return -1;
  return end;
}
