import { TOKEN_FAMILIES } from '../envelopes/token-families.ts';

/**
 * A family's special tokens after a detokeniser or a serving stack mangled
 * them: stripped of their bars and brackets (`tool_call_begin`), spelled with
 * ASCII look-alikes (`<|tool call begin|>` for DeepSeek's
 * `<｜tool▁call▁begin｜>`), or with spaces for underscores. The words come
 * from the token table, so a new family's tokens are known here too.
 */

/** Families whose tokens structure a call (reasoning and chat-turn tokens are not call syntax). */
const CALL_TOKEN_FAMILIES = ['deepseek', 'kimi', 'mistral', 'llama', 'minimaxText', 'granite'] as const;

/** The words of a token, lower-cased and joined by `_`: `<｜tool▁call▁begin｜>` → `tool_call_begin`. */
export function tokenWords(token: string): string {
  return token
    .replace(/[<>[\]|｜/]/g, ' ')
    .trim()
    .split(/[\s▁_-]+/)
    .filter((word) => word !== '')
    .join('_')
    .toLowerCase();
}

function collectWords(): ReadonlySet<string> {
  const words = new Set<string>();
  for (const family of CALL_TOKEN_FAMILIES) {
    for (const token of Object.values(TOKEN_FAMILIES[family])) {
      const w = tokenWords(token);
      if (w !== '') words.add(w);
    }
  }
  return words;
}

/** Every call token's words (`tool_call_begin`, `tool_sep`, `args`, `tool_calls`…). */
export const SKELETON_WORDS: ReadonlySet<string> = collectWords();

const MAX_WORDS = 6;
const OPENERS = '<[|｜';
const CLOSERS = '|｜>]';
const WORD_RE = /[A-Za-z]+/y;
const SEPARATORS = '_▁ -';

/**
 * The end of a skeleton token at `pos`, or -1. A one-word core (`args`,
 * `tool_calls` has two) must keep a bar or bracket around it, so a plain word
 * of prose is never a token; a token with all its own bars intact is a real
 * token, read by its family's finder, and is not a skeleton here.
 */
export function skeletonTokenEnd(text: string, pos: number, limit: number = text.length): number {
  let i = pos;
  let lead = 0;
  while (lead < 2 && i < limit && OPENERS.includes(text.charAt(i))) {
    i += 1;
    lead += 1;
  }
  const wordEnds: number[] = [];
  const words: string[] = [];
  let j = i;
  while (words.length < MAX_WORDS && j < limit) {
    WORD_RE.lastIndex = j;
    const m = WORD_RE.exec(text);
    if (m === null || m.index !== j) break;
    words.push(m[0].toLowerCase());
    j += m[0].length;
    wordEnds.push(j);
    if (j < limit && SEPARATORS.includes(text.charAt(j)) && /[A-Za-z]/.test(text.charAt(j + 1))) j += 1;
    else break;
  }
  for (let n = words.length; n > 0; n -= 1) {
    const core = words.slice(0, n).join('_');
    if (!SKELETON_WORDS.has(core)) continue;
    let end = wordEnds[n - 1] ?? i;
    let trail = 0;
    while (trail < 2 && end < limit && CLOSERS.includes(text.charAt(end))) {
      end += 1;
      trail += 1;
    }
    if (n === 1 && lead + trail === 0) return -1;
    return end;
  }
  return -1;
}
