import type { ToolContent, ToolResult } from '../core/index.ts';

/** Default `gateway.maxResultBytes`: a tool result larger than this is cut before it is recorded and sent. */
export const DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;

const encoder = new TextEncoder();

function sizeOf(value: unknown): number {
  return encoder.encode(JSON.stringify(value) ?? '').length;
}

/**
 * A result within `limit` bytes (its content and structured content as JSON):
 * text is cut with a note saying how much was dropped, binary blocks and
 * structured content that do not fit are replaced by a note. An untouched
 * result is returned as it is; a cut one carries `truncated`.
 */
export function limitResult(result: ToolResult, limit: number): ToolResult {
  const bytes = sizeOf({ content: result.content, structuredContent: result.structuredContent });
  if (bytes <= limit) return result;
  const note = (what: string): ToolContent => ({ type: 'text', text: `[toolgate: ${what}; the result was ${bytes} bytes, over the gateway's limit of ${limit}]` });
  // What stays must leave room for the notes.
  let budget = Math.max(0, limit - 512);
  const content: ToolContent[] = [];
  let cut = false;
  for (const block of result.content) {
    const size = sizeOf(block);
    if (size <= budget) {
      content.push(block);
      budget -= size;
      continue;
    }
    cut = true;
    if (block.type === 'text' && budget > 64) {
      content.push({ type: 'text', text: cutText(block.text, budget - 64) });
      budget = 0;
    } else {
      content.push(note(`a ${block.type} block was left out`));
    }
  }
  const limited: ToolResult = { ...result, content, truncated: { bytes, limit } };
  if (result.structuredContent !== undefined && sizeOf(result.structuredContent) > budget) {
    delete limited.structuredContent;
    content.push(note('the structured content was left out'));
  } else if (cut) {
    content.push(note('the text was cut'));
  }
  return limited;
}

/** The longest prefix of `text` within `maxBytes` of UTF-8 (JSON-escaped), never splitting a character. */
function cutText(text: string, maxBytes: number): string {
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (sizeOf(text.slice(0, mid)) <= maxBytes) low = mid;
    else high = mid - 1;
  }
  let end = low;
  // A lone high surrogate at the cut would be a broken character.
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}
