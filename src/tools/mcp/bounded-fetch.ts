import type { FetchLike } from '@modelcontextprotocol/client';
import { concatBytes } from '../../core/concat-bytes.ts';
import { isJsonObject } from '../../core/json.ts';
import { MessageScanner, type ScanLimits } from './message-scanner.ts';
import { droppedMessage, substituteFor } from './refused-answer.ts';

const LF = 0x0a;
const CR = 0x0d;
const encoder = new TextEncoder();
const LINE_FEED = Uint8Array.of(LF);
const SPACE = Uint8Array.of(0x20);

/**
 * `fetch` for the SDK's Streamable HTTP transport with every answer read
 * within bounds, as BoundedReadBuffer does over stdio: a JSON body or an SSE
 * event larger than `keepBytes` (or nested too deep) is read on without
 * being kept and handed on as an error answer to its id; any other body is
 * cut at `keepBytes`. The SDK's own reading would hold the whole of it.
 */
export function boundedFetch(options: {
  limits: ScanLimits;
  onError: (error: Error) => void;
  fetch?: FetchLike;
}): FetchLike {
  const base = options.fetch ?? fetch;
  return async (url, init) => {
    const response = await base(url, init);
    if (response.body === null) return response;
    const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const body =
      type === 'application/json'
        ? response.body.pipeThrough(jsonBody(options.limits, requestId(init)))
        : type === 'text/event-stream'
          ? response.body.pipeThrough(eventStream(options.limits, options.onError))
          : response.body.pipeThrough(cutAt(options.limits.keepBytes));
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
}

/** The id of the request sent (the SDK sends one message per POST), to answer in its place if the answer names none. */
function requestId(init: RequestInit | undefined): string | number | undefined {
  if (typeof init?.body !== 'string') return undefined;
  try {
    const message: unknown = JSON.parse(init.body);
    const id = isJsonObject(message) ? message['id'] : undefined;
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** One JSON-RPC message as the whole body. */
function jsonBody(limits: ScanLimits, sentId: string | number | undefined): TransformStream<Uint8Array, Uint8Array> {
  const scanner = new MessageScanner(limits);
  return new TransformStream({
    transform: (chunk) => scanner.push(chunk),
    flush: (controller) => {
      const verdict = scanner.finish();
      if (verdict.kind === 'whole') {
        controller.enqueue(verdict.bytes);
        return;
      }
      const substitute = substituteFor({ ...verdict, id: verdict.id ?? sentId, isRequest: false }, limits);
      controller.enqueue(encoder.encode(JSON.stringify(substitute ?? null)));
    },
  });
}

/**
 * An SSE stream, event by event: fields other than `data` pass as they came
 * (a line over the limit is left out); the data of an event is read through
 * the scanner and passed on whole, or replaced by its substitute when it is
 * over the limits (left out, for a message that answers nothing).
 */
function eventStream(limits: ScanLimits, onError: (error: Error) => void): TransformStream<Uint8Array, Uint8Array> {
  const scanner = new MessageScanner(limits);
  const prefix = encoder.encode('data:');
  /** This event's lines that are not data, each with its line end. */
  let others: Uint8Array[] = [];
  let hasData = false;
  // The line being read: its first bytes until they say which field it is, then its bytes.
  let start: number[] = [];
  let field: 'unknown' | 'data' | 'other' = 'unknown';
  let dropSpace = false;
  let other: Uint8Array[] = [];
  let otherBytes = 0;
  let skipLf = false;

  const becomeOther = (): void => {
    field = 'other';
    other = [Uint8Array.from(start)];
    otherBytes = start.length;
    start = [];
  };
  const becomeData = (): void => {
    field = 'data';
    dropSpace = true;
    start = [];
    // Data lines of one event are one message, joined by line feeds.
    if (hasData) scanner.push(LINE_FEED);
    hasData = true;
  };
  /** Bytes of the current line (no line end among them). */
  const feed = (chunk: Uint8Array, from: number, to: number): void => {
    let i = from;
    while (field === 'unknown' && i < to) {
      const c = chunk[i] ?? 0;
      i += 1;
      start.push(c);
      if (c !== prefix[start.length - 1]) becomeOther();
      else if (start.length === prefix.length) becomeData();
    }
    if (i < to && field === 'data' && dropSpace) {
      dropSpace = false;
      if (chunk[i] === 0x20) i += 1;
    }
    if (i >= to) return;
    if (field === 'data') scanner.push(chunk, i, to);
    else {
      if (otherBytes + to - i <= limits.keepBytes) other.push(chunk.subarray(i, to));
      otherBytes += to - i;
    }
  };
  const endEvent = (controller: TransformStreamDefaultController<Uint8Array>): void => {
    for (const line of others) controller.enqueue(line);
    others = [];
    if (hasData) {
      hasData = false;
      const verdict = scanner.finish();
      if (verdict.kind === 'whole') {
        for (const line of splitLines(verdict.bytes)) controller.enqueue(concatBytes([prefix, SPACE, line, LINE_FEED]));
      } else {
        const substitute = substituteFor(verdict, limits);
        if (substitute === undefined) onError(droppedMessage(verdict, limits));
        else controller.enqueue(encoder.encode(`data: ${JSON.stringify(substitute)}\n`));
      }
    }
    controller.enqueue(LINE_FEED);
  };
  const endLine = (controller: TransformStreamDefaultController<Uint8Array>): void => {
    if (field === 'unknown') {
      if (start.length === 0) {
        endEvent(controller);
        return;
      }
      becomeOther();
    }
    if (field === 'other' && otherBytes <= limits.keepBytes) others.push(concatBytes([...other, LINE_FEED]));
    field = 'unknown';
    dropSpace = false;
    other = [];
    otherBytes = 0;
  };

  return new TransformStream({
    transform: (chunk, controller) => {
      let from = skipLf && chunk[0] === LF ? 1 : 0;
      skipLf = false;
      // Where the next CR is: servers rarely send one, and looking for it again at every line would scan the chunk once
      // per line.
      let cr = -1;
      for (;;) {
        if (cr < from) {
          cr = chunk.indexOf(CR, from);
          if (cr < 0) cr = chunk.length;
        }
        const lf = chunk.indexOf(LF, from);
        const end = lf < 0 ? (cr < chunk.length ? cr : -1) : Math.min(lf, cr);
        if (end < 0) {
          feed(chunk, from, chunk.length);
          return;
        }
        feed(chunk, from, end);
        endLine(controller);
        // CR LF is one line end, even split between two chunks.
        if (chunk[end] === CR && chunk[end + 1] === LF) from = end + 2;
        else {
          from = end + 1;
          if (chunk[end] === CR && from === chunk.length) skipLf = true;
        }
      }
    },
    flush: (controller) => {
      if (field !== 'unknown' || start.length > 0) endLine(controller);
      if (hasData || others.length > 0) endEvent(controller);
    },
  });
}

function* splitLines(bytes: Uint8Array): Generator<Uint8Array> {
  let from = 0;
  for (let at = bytes.indexOf(LF); at >= 0; at = bytes.indexOf(LF, from)) {
    yield bytes.subarray(from, at);
    from = at + 1;
  }
  yield bytes.subarray(from);
}

/** Passes at most `maxBytes` of a body (an error page, say), then stops reading it. */
function cutAt(maxBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let passed = 0;
  return new TransformStream({
    transform: (chunk, controller) => {
      if (passed >= maxBytes) return;
      const part = chunk.subarray(0, maxBytes - passed);
      passed += part.length;
      controller.enqueue(part);
      if (passed >= maxBytes) controller.terminate();
    },
  });
}
