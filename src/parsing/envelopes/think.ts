import type { Span } from '../types.ts';
import { DEFAULT_MAX_ENVELOPES } from './envelope.ts';

/**
 * Reasoning blocks (`<think>…</think>`, Qwen3, DeepSeek-R1). A model plans
 * its calls in there ("I'll call get_weather with {…}"): that is not a call.
 * R1's template opens the block itself, so the text may start inside it with
 * only `</think>` showing.
 */

const OPEN = '<think>';
const CLOSE = '</think>';

export function findThinkBlocks(text: string): Span[] {
  const blocks: Span[] = [];
  let pos = 0;
  const firstClose = text.indexOf(CLOSE);
  const firstOpen = text.indexOf(OPEN);
  if (firstClose >= 0 && (firstOpen < 0 || firstClose < firstOpen)) {
    blocks.push({ start: 0, end: firstClose + CLOSE.length });
    pos = firstClose + CLOSE.length;
  }
  while (true) {
    if (blocks.length >= DEFAULT_MAX_ENVELOPES) {
      // A flood of reasoning blocks: treat the rest as reasoning too.
      blocks.push({ start: pos, end: text.length });
      break;
    }
    const open = text.indexOf(OPEN, pos);
    if (open < 0) break;
    const close = text.indexOf(CLOSE, open + OPEN.length);
    if (close < 0) {
      blocks.push({ start: open, end: text.length });
      break;
    }
    blocks.push({ start: open, end: close + CLOSE.length });
    pos = close + CLOSE.length;
  }
  return blocks;
}

/** The text without its reasoning blocks (what the reply says, as opposed to what the model thought). */
export function withoutReasoning(text: string): string {
  let out = '';
  let pos = 0;
  for (const block of findThinkBlocks(text)) {
    out += text.slice(pos, block.start);
    pos = block.end;
  }
  return out + text.slice(pos);
}
