// A scriptable stand-in for an OpenAI-compatible server, for tests. It records
// every request and answers from a queue of scripted responses, shaped like
// real chat.completion / chat.completion.chunk objects, so adapters are tested
// against the wire format rather than against our own assumptions. Some
// responses play a runaway endpoint (a stream that never ends, a body or one
// event far too large, bytes that trickle in); they stop writing as soon as the
// client goes away, which `disconnected` records.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockTimers, send, sendJson, sendRaw } from './mock-http.ts';

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. "/v1/chat/completions". */
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (the raw text when it was not JSON; undefined when empty). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary wire fields
  body: any;
  /** The connection closed before the response was complete: the client gave up (or dropConnection). */
  disconnected: boolean;
}

export interface MockToolCall {
  id?: string;
  name: string;
  arguments: string;
}

/** A normal answer: SSE chunks when the request asked for `stream: true`, one JSON completion otherwise. */
export interface MockCompletion {
  text?: string;
  /** Sent as `reasoning_content` (DeepSeek, vLLM, SGLang): in the message, or as deltas before the content. */
  reasoning?: string;
  toolCalls?: MockToolCall[];
  finishReason?: string;
  usage?: { promptTokens: number; completionTokens: number; totalTokens?: number };
  /**
   * Send no usage at all (no `usage` in the completion, no usage chunk in a stream), as servers that do not count do.
   */
  omitUsage?: boolean;
  /** Pause between SSE chunks (to cancel or time out mid-stream). */
  chunkDelayMs?: number;
  /** Write the whole answer one byte at a time, this many ms apart: a server that never quite stalls. */
  trickleMs?: number;
}

/** SSE content deltas repeating `text` (default "la ") forever: no finish_reason, no [DONE]. */
export interface MockEndlessStream {
  endlessStream: true;
  text?: string;
  chunkDelayMs?: number;
}

/**
 * A JSON body with a string of `hugeBody` bytes in it: the answer's content
 * (status 200, a chat.completion) or the error message (status >= 400). Sent
 * chunked unless `announceLength` sends the true Content-Length up front.
 */
export interface MockHugeBody {
  hugeBody: number;
  status?: number;
  announceLength?: boolean;
}

/** An event stream whose second event carries `hugeEvent` bytes of content on one line, then finishes normally. */
export interface MockHugeEvent {
  hugeEvent: number;
}

/** An HTTP error. `body` is sent as JSON (a string as plain text); default: an OpenAI-style error object. */
export interface MockError {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Exact bytes, e.g. a recorded fixture. `chunkSize` writes them in pieces of that many bytes. */
export interface MockRaw {
  raw: string;
  contentType?: string;
  status?: number;
  chunkSize?: number;
}

export type MockResponse =
  | MockCompletion
  | MockError
  | MockRaw
  | MockEndlessStream
  | MockHugeBody
  | MockHugeEvent
  | { dropConnection: true }
  | { delayMs: number; then: MockResponse };

export interface MockOpenAI {
  /** Base URL ending in /v1, ready for an adapter's baseUrl. */
  url: string;
  requests: RecordedRequest[];
  enqueue(...responses: MockResponse[]): void;
  /** Scripted responses not yet used (a test that leaves some behind did not do what it meant). */
  remaining(): number;
  close(): Promise<void>;
}

export interface MockOpenAIOptions {
  responses?: MockResponse[];
  /** Answers requests once the queue is empty. */
  handler?: (request: RecordedRequest) => MockResponse | Promise<MockResponse>;
}

/** A safety net for the runaway responses: a client that never stops reading still ends the test. */
const RUNAWAY_CAP_BYTES = 256 * 1024 * 1024;
/** Large bodies go out in writes of this size, of a character that needs no JSON escaping. */
const FILLER = 'a'.repeat(64 * 1024);
/** Marks where the filler goes in a serialised body. */
const PLACEHOLDER = '@@huge-filler@@';
const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
} as const;

/** Delta sizes cycle through these, so fragments vary the way real token streams do. */
const PIECE_SIZES = [3, 1, 5, 2, 4] as const;

/** Splits by code points (never inside a surrogate pair) into small, uneven pieces. */
export function splitPieces(text: string): string[] {
  const chars = Array.from(text);
  const pieces: string[] = [];
  for (let i = 0, k = 0; i < chars.length; k += 1) {
    const size = PIECE_SIZES[k % PIECE_SIZES.length] ?? 3;
    pieces.push(chars.slice(i, i + size).join(''));
    i += size;
  }
  return pieces;
}

function errorBody(message: string, type: string, code: string | null): unknown {
  return { error: { message, type, param: null, code } };
}

/** What every object of one answer repeats. */
interface Identity {
  id: string;
  created: number;
  model: string;
}

function completionObject(
  who: Identity,
  message: Record<string, unknown>,
  finishReason: string,
  usage: Record<string, number> | undefined,
): unknown {
  return {
    id: who.id,
    object: 'chat.completion',
    created: who.created,
    model: who.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
    ...(usage === undefined ? {} : { usage }),
    system_fingerprint: 'fp_mock',
  };
}

function chunkEvent(who: Identity, choices: unknown[], extra: Record<string, unknown> = {}): string {
  const body = {
    id: who.id,
    object: 'chat.completion.chunk',
    created: who.created,
    model: who.model,
    system_fingerprint: 'fp_mock',
  };
  return `data: ${JSON.stringify({ ...body, choices, ...extra })}\n\n`;
}

function deltaEvent(who: Identity, delta: Record<string, unknown>, finish: string | null = null): string {
  return chunkEvent(who, [{ index: 0, delta, logprobs: null, finish_reason: finish }]);
}

export async function startMockOpenAI(options: MockOpenAIOptions = {}): Promise<MockOpenAI> {
  const queue: MockResponse[] = [...(options.responses ?? [])];
  const requests: RecordedRequest[] = [];
  const timers = new MockTimers();
  const wait = (ms: number): Promise<void> => timers.wait(ms);
  let counter = 0;

  /** `size` bytes of filler after `head`, then `tail`, in WRITE_BYTES pieces; stops when the client leaves. */
  const sendHuge = async (res: ServerResponse, head: string, size: number, tail: string): Promise<boolean> => {
    if (!(await send(res, head))) return false;
    for (let left = size; left > 0; left -= FILLER.length) {
      if (!(await send(res, left >= FILLER.length ? FILLER : FILLER.slice(0, left)))) return false;
      // Lets the client's side of this same process read, and notice a disconnect.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return send(res, tail);
  };

  const identity = (request: RecordedRequest): Identity => {
    counter += 1;
    return {
      id: `chatcmpl-mock${String(counter).padStart(6, '0')}`,
      created: Math.floor(Date.now() / 1000),
      model: typeof request.body?.model === 'string' ? request.body.model : 'mock-model',
    };
  };

  const trickle = async (res: ServerResponse, text: string, everyMs: number): Promise<void> => {
    const bytes = Buffer.from(text, 'utf8');
    for (let i = 0; i < bytes.length; i += 1) {
      if (!(await send(res, bytes.subarray(i, i + 1)))) return;
      await wait(everyMs);
    }
    res.end();
  };

  const completion = async (res: ServerResponse, request: RecordedRequest, r: MockCompletion): Promise<void> => {
    const who = identity(request);
    const text = r.text ?? '';
    const calls = (r.toolCalls ?? []).map((c, i) => ({ ...c, id: c.id ?? `call_mock${counter}x${i}` }));
    const finishReason = r.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop');
    const promptTokens = r.usage?.promptTokens ?? Math.ceil(JSON.stringify(request.body?.messages ?? []).length / 4);
    const completionTokens =
      r.usage?.completionTokens ?? Math.ceil((text.length + calls.reduce((n, c) => n + c.arguments.length, 0)) / 4);
    const usage =
      r.omitUsage === true
        ? undefined
        : {
            prompt_tokens: promptTokens,
            completion_tokens: completionTokens,
            total_tokens: r.usage?.totalTokens ?? promptTokens + completionTokens,
          };

    if (request.body?.stream !== true) {
      const message: Record<string, unknown> = {
        role: 'assistant',
        content: text === '' && calls.length > 0 ? null : text,
        refusal: null,
      };
      if (r.reasoning !== undefined) message['reasoning_content'] = r.reasoning;
      if (calls.length > 0) {
        message['tool_calls'] = calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.arguments },
        }));
      }
      const body = completionObject(who, message, finishReason, usage);
      if (r.trickleMs === undefined) {
        sendJson(res, 200, body);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      await trickle(res, JSON.stringify(body), r.trickleMs);
      return;
    }

    const events: string[] = [deltaEvent(who, { role: 'assistant', content: '', refusal: null })];
    for (const piece of splitPieces(r.reasoning ?? '')) events.push(deltaEvent(who, { reasoning_content: piece }));
    for (const piece of splitPieces(text)) events.push(deltaEvent(who, { content: piece }));
    calls.forEach((c, index) => {
      events.push(
        deltaEvent(who, {
          tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }],
        }),
      );
      for (const piece of splitPieces(c.arguments))
        events.push(deltaEvent(who, { tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    events.push(deltaEvent(who, {}, finishReason));
    if (request.body?.stream_options?.include_usage === true && usage !== undefined)
      events.push(chunkEvent(who, [], { usage }));
    events.push('data: [DONE]\n\n');

    res.writeHead(200, SSE_HEADERS);
    if (r.trickleMs !== undefined) {
      await trickle(res, events.join(''), r.trickleMs);
      return;
    }
    for (const event of events) {
      if (!(await send(res, event))) return;
      if (r.chunkDelayMs !== undefined && r.chunkDelayMs > 0) await wait(r.chunkDelayMs);
    }
    res.end();
  };

  const endlessStream = async (res: ServerResponse, request: RecordedRequest, r: MockEndlessStream): Promise<void> => {
    const who = identity(request);
    const pieces = splitPieces(r.text === undefined || r.text === '' ? 'la ' : r.text);
    res.writeHead(200, SSE_HEADERS);
    if (!(await send(res, deltaEvent(who, { role: 'assistant', content: '', refusal: null })))) return;
    for (let sent = 0, k = 0; sent < RUNAWAY_CAP_BYTES; k += 1) {
      const event = deltaEvent(who, { content: pieces[k % pieces.length] });
      if (!(await send(res, event))) return;
      sent += event.length;
      if (r.chunkDelayMs !== undefined && r.chunkDelayMs > 0) await wait(r.chunkDelayMs);
      else if (k % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  };

  const hugeBody = async (res: ServerResponse, request: RecordedRequest, r: MockHugeBody): Promise<void> => {
    const status = r.status ?? 200;
    const body =
      status < 400
        ? completionObject(identity(request), { role: 'assistant', content: PLACEHOLDER, refusal: null }, 'stop', {
            prompt_tokens: 1,
            completion_tokens: 1,
            total_tokens: 2,
          })
        : errorBody(PLACEHOLDER, status >= 500 ? 'server_error' : 'invalid_request_error', null);
    const [head = '', tail = ''] = JSON.stringify(body).split(PLACEHOLDER);
    const headers: Record<string, string | number> = { 'content-type': 'application/json' };
    if (r.announceLength === true)
      headers['content-length'] = Buffer.byteLength(head) + r.hugeBody + Buffer.byteLength(tail);
    res.writeHead(status, headers);
    if (await sendHuge(res, head, r.hugeBody, tail)) res.end();
  };

  const hugeEvent = async (res: ServerResponse, request: RecordedRequest, r: MockHugeEvent): Promise<void> => {
    const who = identity(request);
    res.writeHead(200, SSE_HEADERS);
    if (!(await send(res, deltaEvent(who, { role: 'assistant', content: '', refusal: null })))) return;
    const [head = '', tail = ''] = deltaEvent(who, { content: PLACEHOLDER }).split(PLACEHOLDER);
    if (!(await sendHuge(res, head, r.hugeEvent, tail))) return;
    if (!(await send(res, deltaEvent(who, {}, 'stop')))) return;
    if (await send(res, 'data: [DONE]\n\n')) res.end();
  };

  const respond = async (
    req: IncomingMessage,
    res: ServerResponse,
    request: RecordedRequest,
    r: MockResponse,
  ): Promise<void> => {
    if ('dropConnection' in r) {
      req.socket.destroy();
      return;
    }
    if ('then' in r) {
      await wait(r.delayMs);
      if (!res.destroyed) await respond(req, res, request, r.then);
      return;
    }
    if ('raw' in r) {
      const contentType = r.contentType ?? (/^\s*[[{]/.test(r.raw) ? 'application/json' : 'text/event-stream');
      res.writeHead(r.status ?? 200, { 'content-type': contentType });
      await sendRaw(res, r.raw, r.chunkSize);
      return;
    }
    if ('endlessStream' in r) return endlessStream(res, request, r);
    if ('hugeBody' in r) return hugeBody(res, request, r);
    if ('hugeEvent' in r) return hugeEvent(res, request, r);
    if ('status' in r) {
      const body =
        r.body ?? errorBody(`mock error ${r.status}`, r.status >= 500 ? 'server_error' : 'invalid_request_error', null);
      if (typeof body === 'string') {
        res.writeHead(r.status, { 'content-type': 'text/plain; charset=utf-8', ...r.headers });
        res.end(body);
      } else {
        sendJson(res, r.status, body, r.headers);
      }
      return;
    }
    await completion(res, request, r);
  };

  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      let body: unknown;
      let badJson = false;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = text;
        badJson = true;
      }
      const request: RecordedRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body,
        disconnected: false,
      };
      requests.push(request);
      res.on('close', () => {
        if (!res.writableFinished) request.disconnected = true;
      });
      const route = request.path.split('?')[0];
      if (request.method !== 'POST' || route !== '/v1/chat/completions') {
        sendJson(
          res,
          404,
          errorBody(
            `Unknown request URL: ${request.method} ${request.path}. Please check the URL for typos.`,
            'invalid_request_error',
            'unknown_url',
          ),
        );
        return;
      }
      if (badJson) {
        sendJson(
          res,
          400,
          errorBody('We could not parse the JSON body of your request.', 'invalid_request_error', null),
        );
        return;
      }
      void (async () => {
        const next = queue.shift() ?? (await options.handler?.(request));
        if (next === undefined) {
          sendJson(
            res,
            500,
            errorBody(
              `mock OpenAI server has no scripted response left for request ` +
                `#${requests.length} (${request.method} ${request.path})`,
              'mock_error',
              'mock_queue_empty',
            ),
          );
          return;
        }
        await respond(req, res, request, next);
      })().catch((error: unknown) => {
        if (!res.headersSent)
          sendJson(res, 500, errorBody(`mock OpenAI server failed: ${String(error)}`, 'mock_error', null));
        else res.destroy();
      });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...responses) => void queue.push(...responses),
    remaining: () => queue.length,
    close: () =>
      new Promise<void>((resolve, reject) => {
        timers.clear();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}
