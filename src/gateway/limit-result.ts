import {
  TRUNCATED_META_KEY,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  type ToolContent,
  type ToolResult,
} from '../core/index.ts';

export { DEFAULT_MAX_RESULT_BYTES, TRUNCATED_META_KEY } from '../core/index.ts';

const encoder = new TextEncoder();

function sizeOf(value: unknown): number {
  return encoder.encode(JSON.stringify(value) ?? '').length;
}

/** How the note names the limit: the gateway's (`gateway.maxResultBytes`) by default. */
export const GATEWAY_LIMIT_LABEL = "the gateway's limit";

/** Bytes kept back for the one note a cut result ends with. */
const NOTE_BYTES = 400;

/**
 * A result within `limit` bytes (its content and structured content as JSON):
 * blocks are kept in order while they fit, the first text that does not fit is
 * cut, other blocks and structured content that do not fit are left out, and
 * one note at the end says what was done. An untouched result is returned as
 * it is; a cut one carries `truncated`. A result its source already cut while
 * reading it (it carries `truncated`: only its head was read) gets the note
 * too, with the size it had. `label` names the limit in the note.
 */
export function limitResult(result: ToolResult, limit: number, label = GATEWAY_LIMIT_LABEL): ToolResult {
  const bytes = sizeOf({ content: result.content, structuredContent: result.structuredContent });
  const readPart = result.truncated !== undefined;
  if (bytes <= limit && !readPart) return result;
  const original = result.truncated?.bytes ?? bytes;
  const fitted = fitInOrder<ToolContent>(result.content, Math.max(0, limit - NOTE_BYTES - sizeOf({ content: [] })), {
    cut: (block, room) => (block.type === 'text' ? { type: 'text', text: cutText(block.text, room - 32) } : undefined),
    kind: (block) => `${block.type} block`,
  });
  const content = fitted.kept;
  const limited: ToolResult = { ...result, content, truncated: { bytes: original, limit } };
  const keepStructured =
    result.structuredContent !== undefined && sizeOf(result.structuredContent) + 24 <= fitted.budget;
  if (!keepStructured) delete limited.structuredContent;
  const what = [
    ...(readPart ? ['only its first part was read'] : []),
    ...fitted.said,
    ...(result.structuredContent !== undefined && !keepStructured ? ['the structured content left out'] : []),
  ];
  content.push({
    type: 'text',
    text: `[toolgate: ${what.join(', ')}; the result was ${original} bytes, over ${label} of ${limit}]`,
  });
  return limited;
}

/**
 * Items kept in order while they fit in `budget` bytes (as JSON); the first
 * text that does not fit is cut to the room left (`cut` says how, or that an
 * item is no text); the others that do not fit are left out and counted by
 * `kind`. `said`: what was done, for the note; `budget`: the room left.
 */
function fitInOrder<T>(
  items: readonly T[],
  budget: number,
  how: { cut: (item: T, room: number) => T | undefined; kind: (item: T) => string },
): { kept: T[]; said: string[]; budget: number } {
  const kept: T[] = [];
  const dropped = new Map<string, number>();
  let textCut = false;
  let room = budget;
  for (const item of items) {
    const size = sizeOf(item) + 1;
    if (size <= room) {
      kept.push(item);
      room -= size;
      continue;
    }
    const cut = !textCut && room > 64 ? how.cut(item, room) : undefined;
    if (cut !== undefined) {
      kept.push(cut);
      room -= sizeOf(cut) + 1;
      textCut = true;
    } else {
      const kind = how.kind(item);
      dropped.set(kind, (dropped.get(kind) ?? 0) + 1);
    }
  }
  const said = [
    ...(textCut ? ['the text was cut'] : []),
    ...[...dropped].map(([kind, n]) => `${n} ${kind}${n === 1 ? '' : 's'} left out`),
  ];
  return { kept, said, budget: room };
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

/**
 * A `resources/read` result within `limit` bytes (its `contents` as JSON),
 * as limitResult does for a tool result: contents are kept in order while
 * they fit, the first text that does not fit is cut, a blob that does not fit
 * is left out (half of its base64 means nothing), and one text content at the
 * end says what was done. `_meta["toolgate/truncated"]` carries the sizes. An
 * untouched result (or one without a `contents` list) is returned as it is.
 */
export function limitResourceContents(result: JsonObject, limit: number, uri: string): JsonObject {
  const contents = result['contents'];
  if (!Array.isArray(contents)) return result;
  const bytes = sizeOf(contents);
  // Cut by its source while it was read: only its head is here, and its size is in the meta.
  const meta = isJsonObject(result['_meta']) ? result['_meta'] : {};
  const readPart = isJsonObject(meta[TRUNCATED_META_KEY]) ? meta[TRUNCATED_META_KEY] : undefined;
  if (bytes <= limit && readPart === undefined) return result;
  const original = typeof readPart?.['bytes'] === 'number' ? readPart['bytes'] : bytes;
  // The note names the resource: its URI (the client's) is counted, not guessed.
  const { kept, said } = fitInOrder<JsonValue>(contents, Math.max(0, limit - NOTE_BYTES - sizeOf(uri) - 2), {
    cut: (item, room) => {
      if (!isJsonObject(item) || typeof item['text'] !== 'string') return undefined;
      const { text, ...rest } = item;
      return { ...rest, text: cutText(text, room - sizeOf({ ...rest, text: '' }) - 32) };
    },
    // Half of a blob's base64 means nothing: one that does not fit is left out whole.
    kind: (item) => (isJsonObject(item) && typeof item['blob'] === 'string' ? 'blob' : 'other content'),
  });
  const what = [...(readPart === undefined ? [] : ['only its first part was read']), ...said];
  kept.push({
    uri,
    mimeType: 'text/plain',
    text: `[toolgate: ${what.join(', ')}; the resource was ${original} bytes, over the gateway's limit of ${limit}]`,
  });
  return { ...result, contents: kept, _meta: { ...meta, [TRUNCATED_META_KEY]: { bytes: original, limit } } };
}

/**
 * A `prompts/get` result within `limit` bytes (its `messages` as JSON), as
 * limitResourceContents does for a resource: messages are kept in order while
 * they fit, the first text message that does not fit is cut, others are left
 * out, and one user message at the end says what was done.
 * `_meta["toolgate/truncated"]` carries the sizes.
 */
export function limitPromptMessages(result: JsonObject, limit: number, name: string): JsonObject {
  const messages = result['messages'];
  if (!Array.isArray(messages)) return result;
  const bytes = sizeOf(messages);
  if (bytes <= limit) return result;
  const meta = isJsonObject(result['_meta']) ? result['_meta'] : {};
  const { kept, said } = fitInOrder<JsonValue>(messages, Math.max(0, limit - NOTE_BYTES - sizeOf(name) - 2), {
    cut: (item, room) => {
      const content = isJsonObject(item) ? item['content'] : undefined;
      if (!isJsonObject(item) || !isJsonObject(content) || typeof content['text'] !== 'string') return undefined;
      const { text, ...rest } = content;
      const empty = { ...item, content: { ...rest, text: '' } };
      return { ...item, content: { ...rest, text: cutText(text, room - sizeOf(empty) - 32) } };
    },
    kind: () => 'message',
  });
  kept.push({
    role: 'user',
    content: {
      type: 'text',
      text: `[toolgate: ${said.join(', ')}; prompt ${name} was ${bytes} bytes, over the gateway's limit of ${limit}]`,
    },
  });
  return { ...result, messages: kept, _meta: { ...meta, [TRUNCATED_META_KEY]: { bytes, limit } } };
}
