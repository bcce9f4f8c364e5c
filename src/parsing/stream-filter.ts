import { extractDetailed } from './extract-tool-calls.ts';
import { BracketTracker } from './scanner.ts';
import type { Span, ToolRef } from './types.ts';

/**
 * Decides, while a reply streams in, which text can be shown now. Text that
 * cannot be part of a call passes through at once. A possible envelope start
 * is held until it resolves: a partial marker (`<tool_`) waits for the next
 * characters; a complete marker (`<tool_call>`, `[TOOL_CALLS]`…) holds the
 * rest of the turn; a `{…}`, `[…]` or fenced block is held until it closes,
 * then shown if it reads as no call. `end()` returns what was held, minus the
 * calls and failed call attempts extractToolCalls finds in the whole reply.
 *
 * Contract: the concatenation of all outputs never contains a byte of a call,
 * does not depend on how the text was split into deltas, and equals the input
 * when the reply holds no call.
 */

export interface StreamFilterOptions {
  /** Tools on offer (default none: every call-shaped block is then held and removed). */
  tools?: readonly (ToolRef | string)[];
}

export interface StreamFilter {
  /** Adds a delta; returns the text that is safe to show now. */
  push(delta: string): string;
  /** The turn ended: returns the rest of the text that is not a call. */
  end(): string;
}

/** Tokens that start a call in some model's syntax: once complete, the rest of the turn is held. */
const MARKERS = [
  '<tool_call>',
  '<tool_calls>',
  '<|tool_call|>',
  '<function=',
  '<|python_tag|>',
  '<minimax:tool_call>',
  '<｜tool▁calls▁begin｜>',
  '<｜tool▁call▁begin｜>',
  '<|tool▁calls▁begin|>',
  '<|tool▁call▁begin|>',
  '[TOOL_CALLS]',
];
const LINE_MARKERS = ['tool:'];
const MARKER_STARTS = new Set(['<', '[']);
const FENCE_CLOSE_RE = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;

type Match = 'full' | 'partial' | 'none';

function matchAny(buffer: string, pos: number, markers: readonly string[]): Match {
  let partial = false;
  for (const marker of markers) {
    if (buffer.length - pos >= marker.length) {
      if (buffer.startsWith(marker, pos)) return 'full';
    } else if (marker.startsWith(buffer.slice(pos))) partial = true;
  }
  return partial ? 'partial' : 'none';
}

type Mode =
  | { kind: 'text' }
  | { kind: 'region'; start: number; tracker: BracketTracker }
  /** `lineStart` -1 while on the opening line; `searched`: no line break before it. */
  | { kind: 'fence'; start: number; marker: string; lineStart: number; searched: number }
  | { kind: 'held'; start: number };

export function createStreamFilter(options: StreamFilterOptions = {}): StreamFilter {
  const tools = options.tools ?? [];
  let buffer = '';
  let emitted = 0;
  let scan = 0;
  let mode: Mode = { kind: 'text' };

  /** Whether a closed block, read on its own, holds a call, a failed attempt at one, or a structured answer. */
  const isCall = (span: Span): boolean => {
    const block = buffer.slice(span.start, span.end);
    if (MARKERS.some((marker) => block.includes(marker))) return true;
    return extractDetailed(block, { tools }).removed.length > 0;
  };

  const resolve = (span: Span): void => {
    mode = isCall(span) ? { kind: 'held', start: span.start } : { kind: 'text' };
    scan = span.end;
  };

  /** Text mode at `scan`: false to wait for more text. */
  const stepText = (): boolean => {
    const c = buffer.charAt(scan);
    const lineStart = scan === 0 || buffer.charAt(scan - 1) === '\n';
    if (MARKER_STARTS.has(c) || (lineStart && c === 't')) {
      const found = matchAny(buffer, scan, lineStart ? [...MARKERS, ...LINE_MARKERS] : MARKERS);
      if (found === 'partial') return false;
      if (found === 'full') {
        mode = { kind: 'held', start: scan };
        return true;
      }
    }
    if (c === '{' || c === '[') {
      mode = { kind: 'region', start: scan, tracker: new BracketTracker() };
      return true;
    }
    if (c === '`' || c === '~') {
      const run = buffer.startsWith(c.repeat(3), scan);
      if (!run && buffer.length - scan < 3 && c.repeat(buffer.length - scan) === buffer.slice(scan)) return false;
      if (run) {
        let end = scan;
        while (buffer.charAt(end) === c) end += 1;
        if (end === buffer.length) return false;
        mode = { kind: 'fence', start: scan, marker: buffer.slice(scan, end), lineStart: -1, searched: end };
        scan = end;
        return true;
      }
    }
    scan += 1;
    return true;
  };

  /** Fence mode: looks for the closing line (or the inline closer on the opening line). */
  const stepFence = (fence: { start: number; marker: string; lineStart: number; searched: number }): boolean => {
    // Search only text not searched before: a long line streamed in many deltas stays linear.
    const newline = buffer.indexOf('\n', fence.searched);
    if (fence.lineStart < 0) {
      const inlineClose = buffer.indexOf(fence.marker, Math.max(scan, fence.searched - fence.marker.length));
      if (inlineClose >= 0 && (newline < 0 || inlineClose < newline)) {
        resolve({ start: fence.start, end: inlineClose + fence.marker.length });
        return true;
      }
    }
    if (newline < 0) {
      fence.searched = buffer.length;
      return false;
    }
    fence.searched = newline + 1;
    if (fence.lineStart < 0) {
      fence.lineStart = newline + 1;
      scan = newline + 1;
      return true;
    }
    const line = buffer.slice(fence.lineStart, newline);
    const close = FENCE_CLOSE_RE.exec(line);
    if ((close?.[1] !== undefined && close[1].startsWith(fence.marker.slice(0, 3))) || (line.trimEnd().endsWith(fence.marker) && line.trim() !== '')) {
      resolve({ start: fence.start, end: newline });
      return true;
    }
    fence.lineStart = newline + 1;
    scan = newline + 1;
    return true;
  };

  const advance = (): void => {
    while (scan < buffer.length) {
      if (mode.kind === 'held') {
        scan = buffer.length;
        return;
      }
      if (mode.kind === 'region') {
        const end = mode.tracker.feed(buffer, scan, buffer.length);
        if (end < 0) {
          scan = buffer.length;
          return;
        }
        resolve({ start: mode.start, end });
        continue;
      }
      if (!(mode.kind === 'fence' ? stepFence(mode) : stepText())) return;
    }
  };

  const safeEnd = (): number => (mode.kind === 'text' ? scan : mode.start);

  return {
    push(delta: string): string {
      buffer += delta;
      advance();
      const end = Math.max(emitted, safeEnd());
      const out = buffer.slice(emitted, end);
      emitted = end;
      return out;
    },
    end(): string {
      if (emitted >= buffer.length) return '';
      const { removed } = extractDetailed(buffer, { tools });
      const sorted = [...removed].sort((a, b) => a.start - b.start);
      let out = '';
      let pos = emitted;
      for (const span of sorted) {
        if (span.end <= pos) continue;
        if (span.start > pos) out += buffer.slice(pos, span.start);
        pos = Math.max(pos, span.end);
      }
      out += buffer.slice(pos);
      emitted = buffer.length;
      return out;
    },
  };
}
