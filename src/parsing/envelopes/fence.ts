import type { Span } from '../types.ts';

/**
 * Markdown code fences (``` or ~~~), including the one-line form models
 * write (```json {"name": …}```) and a closer glued to the last line (`}````).
 */

export interface Fence {
  /** From the opening backticks to the end of the closing ones. */
  span: Span;
  content: Span;
  /** The info string's first word, lower-cased ("json", "tool_code", ""). */
  info: string;
  closed: boolean;
}

/** More fences than any reply holds; past it the rest of the text is left unread. */
export const DEFAULT_MAX_FENCES = 1024;

const OPEN_RE = /^[ \t]*(`{3,}|~{3,})[ \t]*([\w+.#-]*)[ \t]*(.*)$/;
const CLOSE_RE = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;
/** Models also open a fence after text on the same line ("Sure! ```json"). */
const LATE_OPEN_RE = /(`{3,})([\w+.#-]*)[ \t]*$/;
const LATE_OPEN_WINDOW = 40;

interface OpenFence {
  start: number;
  marker: string;
  info: string;
  contentStart: number;
}

interface Opener {
  marker: string;
  info: string;
  /** Text after the info string on the opening line. */
  rest: string;
  /** Offset of the marker in the line. */
  at: number;
}

function opener(line: string): Opener | undefined {
  const m = OPEN_RE.exec(line);
  if (m !== null && m[1] !== undefined)
    return { marker: m[1], info: m[2] ?? '', rest: m[3] ?? '', at: line.indexOf(m[1]) };
  // Only the end of the line can hold a late opener; looking there keeps a line of backticks linear.
  const tailStart = Math.max(0, line.length - LATE_OPEN_WINDOW);
  const late = LATE_OPEN_RE.exec(line.slice(tailStart));
  if (late === null || late[1] === undefined) return undefined;
  const at = tailStart + late.index;
  // "Run ```npm test```" closes inline code; it opens nothing.
  if (at > 0 && line.lastIndexOf('```', at - 1) >= 0) return undefined;
  return { marker: late[1], info: late[2] ?? '', rest: '', at };
}

export function findFences(text: string): Fence[] {
  const fences: Fence[] = [];
  let open: OpenFence | undefined;
  let lineStart = 0;
  while (lineStart <= text.length && fences.length < DEFAULT_MAX_FENCES) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline < 0 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    if (open === undefined) {
      const m = opener(line);
      if (m !== undefined) {
        const marker = m.marker;
        const info = m.info.toLowerCase();
        const start = lineStart + m.at;
        const restStart = lineEnd - m.rest.length;
        const inlineClose = m.rest.lastIndexOf(marker);
        if (inlineClose >= 0) {
          // One line: ```json {"name": …}``` (or inline code written with a fence).
          fences.push({
            span: { start, end: restStart + inlineClose + marker.length },
            content: { start: restStart, end: restStart + inlineClose },
            info,
            closed: true,
          });
        } else {
          // Text after the info string is content only when it starts like a call; else it is attributes.
          const contentStart = /^[[{<]/.test(m.rest) ? restStart : Math.min(lineEnd + 1, text.length);
          open = { start, marker, info, contentStart };
        }
      }
    } else {
      const close = CLOSE_RE.exec(line);
      const glued = close === null && line.trimEnd().endsWith(open.marker) && line.trim().length > open.marker.length;
      if (
        (close?.[1] !== undefined &&
          close[1].charAt(0) === open.marker.charAt(0) &&
          close[1].length >= open.marker.length) ||
        glued
      ) {
        const end = lineStart + line.trimEnd().length;
        const contentEnd = glued ? end - open.marker.length : Math.max(open.contentStart, lineStart - 1);
        fences.push({
          span: { start: open.start, end },
          content: { start: open.contentStart, end: contentEnd },
          info: open.info,
          closed: true,
        });
        open = undefined;
      }
    }
    if (newline < 0) break;
    lineStart = newline + 1;
  }
  if (open !== undefined) {
    fences.push({
      span: { start: open.start, end: text.length },
      content: { start: open.contentStart, end: text.length },
      info: open.info,
      closed: false,
    });
  }
  return fences;
}
