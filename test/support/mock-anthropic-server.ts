// A scriptable stand-in for Anthropic's Messages API (POST /v1/messages), for
// tests. It records every request, refuses the ones the real API refuses (with
// the API's own error bodies, before touching the queue), and answers the rest
// from a queue of scripted responses rendered the way the API renders them: a
// Message object, or with `stream: true` the documented server-sent events
// (message_start, content_block_start/delta/stop, ping, message_delta,
// message_stop, error). Writes stop as soon as the client goes away, which
// `disconnected` records. See test/fixtures/contract/anthropic/README.md for
// the wire format this follows.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockTimers, send, sendJson as writeJson, sendRaw } from './mock-http.ts';
import { checkAnthropicRequest } from './anthropic-request-check.ts';
import { splitPieces, type RecordedRequest } from './mock-openai-server.ts';

export type { RecordedRequest } from './mock-openai-server.ts';

export interface MockAnthropicToolCall {
  /** Default: a fresh toolu_ id. */
  id?: string;
  name: string;
  /**
   * The tool input as the model wrote it. Streamed verbatim as input_json_delta pieces, even when it is not valid JSON.
   */
  arguments: string;
}

export interface MockAnthropicUsage {
  /** Uncached input tokens, as the API counts them (cache reads and writes are reported apart). */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/** A normal answer: a Message object, or the event stream when the request asked for `stream: true`. */
export interface MockAnthropicCompletion {
  text?: string;
  /** A thinking block before the text. */
  reasoning?: string;
  /** The thinking block's signature (default: a made-up base64 string). */
  reasoningSignature?: string;
  toolCalls?: MockAnthropicToolCall[];
  /**
   * An Anthropic stop_reason (end_turn, max_tokens, stop_sequence, tool_use, pause_turn, refusal); default tool_use
   * when there are calls, else end_turn.
   */
  finishReason?: string;
  usage?: MockAnthropicUsage;
  /** Send no usage objects at all, as an Anthropic-compatible server that does not count might. */
  omitUsage?: boolean;
  /** Pause between events (to cancel or time out mid-stream). */
  chunkDelayMs?: number;
}

/**
 * An HTTP error. `body` is sent as JSON (a string as plain text); default: Anthropic's error object with the type for
 * the status.
 */
export interface MockAnthropicError {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Exact bytes, e.g. a fixture. `chunkSize` writes them in pieces of that many bytes. */
export interface MockAnthropicRaw {
  raw: string;
  contentType?: string;
  status?: number;
  chunkSize?: number;
  headers?: Record<string, string>;
}

/**
 * A stream that starts normally, sends `afterText`, then an `event: error` and ends (a non-streamed request gets the
 * matching HTTP error).
 */
export interface MockAnthropicStreamError {
  streamError: { type: string; message: string };
  afterText?: string;
}

/** text_delta events repeating `text` (default "la ") forever: no message_delta, no message_stop. */
export interface MockAnthropicEndlessStream {
  endlessStream: true;
  text?: string;
  chunkDelayMs?: number;
}

export type MockAnthropicResponse =
  | MockAnthropicCompletion
  | MockAnthropicError
  | MockAnthropicRaw
  | MockAnthropicStreamError
  | MockAnthropicEndlessStream
  | { dropConnection: true }
  | { delayMs: number; then: MockAnthropicResponse };

export interface MockAnthropic {
  /** Base URL without /v1, as the official SDK's baseURL: the adapter appends /v1/messages. */
  url: string;
  requests: RecordedRequest[];
  enqueue(...responses: MockAnthropicResponse[]): void;
  /** Scripted responses not yet used (a test that leaves some behind did not do what it meant). */
  remaining(): number;
  close(): Promise<void>;
}

export interface MockAnthropicOptions {
  responses?: MockAnthropicResponse[];
  /** Answers requests once the queue is empty. */
  handler?: (request: RecordedRequest) => MockAnthropicResponse | Promise<MockAnthropicResponse>;
  /** When set, a request whose x-api-key differs gets the API's 401. */
  apiKey?: string;
}

/** A safety net for endless streams: a client that never stops reading still ends the test. */
const RUNAWAY_CAP_BYTES = 256 * 1024 * 1024;
const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
} as const;
const MESSAGES_PATH = '/v1/messages';

/** The error type the API sends with each status (others: invalid_request_error below 500, api_error above). */
const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** The reverse, for a stream error replayed on a non-streamed request. */
const STATUS_OF_TYPE: Readonly<Record<string, number>> = Object.fromEntries(
  Object.entries(ERROR_TYPES).map(([status, type]) => [type, Number(status)]),
);

export function anthropicErrorType(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** Messages as the API words them, where one status has one usual cause. */
function defaultErrorMessage(status: number, model: string): string {
  switch (status) {
    case 401:
      return 'invalid x-api-key';
    case 403:
      return 'Your API key does not have permission to use the specified resource.';
    case 404:
      return `model: ${model}`;
    case 413:
      return 'Request exceeds the maximum allowed number of bytes.';
    case 429:
      return (
        `This request would exceed your organization's rate limit of 50 requests ` +
        `per minute (org: 00000000-0000-4000-8000-000000000000, model: ${model}). ` +
        ('For details, refer to: https://docs.claude.com/en/api/rate-limits. ' +
          'You can see the response headers for current usage. ') +
        'Please reduce the prompt length or the maximum tokens requested, or try again later. ' +
        ('You may also contact sales at https://claude.com/contact-sales ' +
          'to discuss your options for a rate limit increase.')
      );
    case 500:
      return 'Internal server error';
    case 529:
      return 'Overloaded';
    default:
      return `mock error ${status}`;
  }
}

function sseEvent(type: string, data: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The API writes this one event with a space after the colon. */
const PING_EVENT = 'event: ping\ndata: {"type": "ping"}\n\n';

function usageObject(usage: Required<MockAnthropicUsage>, outputTokens: number): Record<string, unknown> {
  return {
    input_tokens: usage.inputTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    cache_creation: { ephemeral_5m_input_tokens: usage.cacheWriteTokens, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
    service_tier: 'standard',
    inference_geo: 'not_available',
  };
}

/** A base64 string shaped like the API's opaque thinking signatures. */
function fakeSignature(seed: string): string {
  return `Eq${Buffer.from(`mock-signature:${seed}`.padEnd(96, '.'), 'utf8').toString('base64')}`;
}

function parseInput(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function offeredTools(body: unknown): string[] {
  const tools = (body as { tools?: unknown } | undefined)?.tools;
  return Array.isArray(tools)
    ? tools.map((t) => (t as { name?: unknown } | null)?.name).filter((n): n is string => typeof n === 'string')
    : [];
}

export async function startMockAnthropic(options: MockAnthropicOptions = {}): Promise<MockAnthropic> {
  const queue: MockAnthropicResponse[] = [...(options.responses ?? [])];
  const requests: RecordedRequest[] = [];
  const timers = new MockTimers();
  const wait = (ms: number): Promise<void> => timers.wait(ms);
  // Every answer of the API carries a request id.
  const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void =>
    writeJson(res, status, body, { 'request-id': nextId('req_011Mock'), ...headers });
  let counter = 0;

  const nextId = (prefix: string): string => {
    counter += 1;
    return `${prefix}${String(counter).padStart(8, '0')}`;
  };

  const sendError = (
    res: ServerResponse,
    status: number,
    message: string,
    headers: Record<string, string> = {},
  ): void => {
    sendJson(
      res,
      status,
      { type: 'error', error: { type: anthropicErrorType(status), message }, request_id: nextId('req_011Mock') },
      headers,
    );
  };

  const sendEvents = async (res: ServerResponse, events: string[], delayMs: number | undefined): Promise<boolean> => {
    for (const event of events) {
      if (!(await send(res, event))) return false;
      if (delayMs !== undefined && delayMs > 0) await wait(delayMs);
    }
    return true;
  };

  const modelOf = (request: RecordedRequest): string =>
    typeof request.body?.model === 'string' ? request.body.model : 'claude-mock';

  /** The opening of every stream: message_start, the first block's start, and the ping the API sends after it. */
  const streamOpening = (
    id: string,
    model: string,
    usage: Required<MockAnthropicUsage> | undefined,
    firstBlock: unknown,
  ): string[] => [
    sseEvent('message_start', {
      type: 'message_start',
      message: {
        model,
        id,
        type: 'message',
        role: 'assistant',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        ...(usage === undefined ? {} : { usage: usageObject(usage, 1) }),
      },
    }),
    sseEvent('content_block_start', { type: 'content_block_start', index: 0, content_block: firstBlock }),
    PING_EVENT,
  ];

  const completion = async (
    res: ServerResponse,
    request: RecordedRequest,
    r: MockAnthropicCompletion,
  ): Promise<void> => {
    const id = nextId('msg_01Mock');
    const text = r.text ?? '';
    const calls = (r.toolCalls ?? []).map((c, i) => ({
      ...c,
      id: c.id ?? `toolu_01Mock${String(counter).padStart(8, '0')}x${i}`,
    }));
    const offered = offeredTools(request.body);
    const unoffered = calls.find((c) => !offered.includes(c.name));
    if (unoffered !== undefined) {
      sendError(
        res,
        500,
        `mock: the script calls tool "${unoffered.name}" but the request offers ` +
          (`${offered.length === 0 ? 'no tools' : `only ${offered.join(', ')}`}; ` +
            `the real API can only call tools it was given`),
      );
      return;
    }
    const stream = request.body?.stream === true;
    if (!stream) {
      const broken = calls.find((c) => parseInput(c.arguments) === undefined);
      if (broken !== undefined) {
        sendError(
          res,
          500,
          `mock: tool call "${broken.name}" has arguments that are ` +
            `not a JSON object (${JSON.stringify(broken.arguments)}); ` +
            (`a non-streamed Message carries tool_use.input as an object, so the real ` +
              `API cannot send this — script it for a streamed request, or fix the JSON`),
        );
        return;
      }
    }
    const model = modelOf(request);
    const stopReason = r.finishReason ?? (calls.length > 0 ? 'tool_use' : 'end_turn');
    const usage: Required<MockAnthropicUsage> = {
      inputTokens: r.usage?.inputTokens ?? Math.ceil(JSON.stringify(request.body?.messages ?? []).length / 4),
      outputTokens:
        r.usage?.outputTokens ??
        Math.max(
          1,
          Math.ceil((text.length + (r.reasoning ?? '').length + calls.reduce((n, c) => n + c.arguments.length, 0)) / 4),
        ),
      cacheReadTokens: r.usage?.cacheReadTokens ?? 0,
      cacheWriteTokens: r.usage?.cacheWriteTokens ?? 0,
    };
    const signature = r.reasoningSignature ?? fakeSignature(id);

    if (!stream) {
      const content: unknown[] = [];
      if (r.reasoning !== undefined) content.push({ type: 'thinking', thinking: r.reasoning, signature });
      if (text !== '' || (calls.length === 0 && r.reasoning === undefined)) content.push({ type: 'text', text });
      for (const c of calls) content.push({ type: 'tool_use', id: c.id, name: c.name, input: parseInput(c.arguments) });
      sendJson(res, 200, {
        model,
        id,
        type: 'message',
        role: 'assistant',
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        stop_details: null,
        ...(r.omitUsage === true ? {} : { usage: usageObject(usage, usage.outputTokens) }),
      });
      return;
    }

    // Each block: its start, its deltas, its stop. The ping follows the first block's start.
    const blocks: { start: unknown; deltas: unknown[] }[] = [];
    if (r.reasoning !== undefined) {
      blocks.push({
        start: { type: 'thinking', thinking: '', signature: '' },
        deltas: [
          ...splitPieces(r.reasoning).map((piece) => ({ type: 'thinking_delta', thinking: piece })),
          { type: 'signature_delta', signature },
        ],
      });
    }
    if (text !== '' || blocks.length + calls.length === 0) {
      blocks.push({
        start: { type: 'text', text: '' },
        deltas: splitPieces(text).map((piece) => ({ type: 'text_delta', text: piece })),
      });
    }
    for (const c of calls) {
      // The API opens each tool input with an empty partial_json, then sends the text as the model wrote it.
      blocks.push({
        start: { type: 'tool_use', id: c.id, name: c.name, input: {} },
        deltas: ['', ...splitPieces(c.arguments)].map((piece) => ({ type: 'input_json_delta', partial_json: piece })),
      });
    }
    const events = streamOpening(id, model, r.omitUsage === true ? undefined : usage, blocks[0]?.start);
    blocks.forEach((block, index) => {
      if (index > 0)
        events.push(
          sseEvent('content_block_start', { type: 'content_block_start', index, content_block: block.start }),
        );
      for (const delta of block.deltas)
        events.push(sseEvent('content_block_delta', { type: 'content_block_delta', index, delta }));
      events.push(sseEvent('content_block_stop', { type: 'content_block_stop', index }));
    });
    events.push(
      sseEvent('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: null, stop_details: null },
        ...(r.omitUsage === true
          ? {}
          : {
              usage: {
                input_tokens: usage.inputTokens,
                cache_creation_input_tokens: usage.cacheWriteTokens,
                cache_read_input_tokens: usage.cacheReadTokens,
                output_tokens: usage.outputTokens,
              },
            }),
      }),
      sseEvent('message_stop', { type: 'message_stop' }),
    );
    res.writeHead(200, { ...SSE_HEADERS, 'request-id': nextId('req_011Mock') });
    if (await sendEvents(res, events, r.chunkDelayMs)) res.end();
  };

  const streamError = async (
    res: ServerResponse,
    request: RecordedRequest,
    r: MockAnthropicStreamError,
  ): Promise<void> => {
    if (request.body?.stream !== true) {
      // Without a stream to break, the same failure is an HTTP error.
      sendJson(res, STATUS_OF_TYPE[r.streamError.type] ?? 500, {
        type: 'error',
        error: r.streamError,
        request_id: nextId('req_011Mock'),
      });
      return;
    }
    const usage = {
      inputTokens: Math.ceil(JSON.stringify(request.body?.messages ?? []).length / 4),
      outputTokens: 1,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    };
    const events = streamOpening(nextId('msg_01Mock'), modelOf(request), usage, { type: 'text', text: '' });
    for (const piece of splitPieces(r.afterText ?? ''))
      events.push(
        sseEvent('content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'text_delta', text: piece },
        }),
      );
    events.push(sseEvent('error', { type: 'error', error: r.streamError }));
    res.writeHead(200, { ...SSE_HEADERS, 'request-id': nextId('req_011Mock') });
    if (await sendEvents(res, events, undefined)) res.end();
  };

  const endlessStream = async (
    res: ServerResponse,
    request: RecordedRequest,
    r: MockAnthropicEndlessStream,
  ): Promise<void> => {
    const pieces = splitPieces(r.text === undefined || r.text === '' ? 'la ' : r.text);
    const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
    res.writeHead(200, { ...SSE_HEADERS, 'request-id': nextId('req_011Mock') });
    if (
      !(await sendEvents(
        res,
        streamOpening(nextId('msg_01Mock'), modelOf(request), usage, { type: 'text', text: '' }),
        undefined,
      ))
    )
      return;
    for (let sent = 0, k = 0; sent < RUNAWAY_CAP_BYTES; k += 1) {
      const event = sseEvent('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: pieces[k % pieces.length] },
      });
      if (!(await send(res, event))) return;
      sent += event.length;
      if (r.chunkDelayMs !== undefined && r.chunkDelayMs > 0) await wait(r.chunkDelayMs);
      else if (k % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  };

  const respond = async (
    req: IncomingMessage,
    res: ServerResponse,
    request: RecordedRequest,
    r: MockAnthropicResponse,
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
      const contentType =
        r.contentType ?? (/^\s*[[{]/.test(r.raw) ? 'application/json' : 'text/event-stream; charset=utf-8');
      res.writeHead(r.status ?? 200, { 'content-type': contentType, ...r.headers });
      await sendRaw(res, r.raw, r.chunkSize);
      return;
    }
    if ('streamError' in r) return streamError(res, request, r);
    if ('endlessStream' in r) return endlessStream(res, request, r);
    if ('status' in r) {
      const headers = { ...(r.status === 429 ? { 'retry-after': '1' } : {}), ...r.headers };
      if (r.body === undefined) {
        sendError(res, r.status, defaultErrorMessage(r.status, modelOf(request)), headers);
      } else if (typeof r.body === 'string') {
        res.writeHead(r.status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
        res.end(r.body);
      } else {
        sendJson(res, r.status, r.body, headers);
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
      let jsonError: string | undefined;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch (error) {
        body = text;
        jsonError = error instanceof Error ? error.message : String(error);
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
      if (request.method !== 'POST' || request.path.split('?')[0] !== MESSAGES_PATH) {
        sendError(res, 404, 'Not Found');
        return;
      }
      // The API authenticates before it reads the body.
      if (options.apiKey !== undefined) {
        const key = req.headers['x-api-key'];
        if (key === undefined) {
          sendError(res, 401, 'x-api-key header is required');
          return;
        }
        if (key !== options.apiKey) {
          sendError(res, 401, 'invalid x-api-key');
          return;
        }
      }
      if (jsonError !== undefined) {
        sendError(res, 400, `The request body is not valid JSON: ${jsonError}`);
        return;
      }
      const problem = checkAnthropicRequest(body, req.headers);
      if (problem !== undefined) {
        sendError(res, 400, problem);
        return;
      }
      void (async () => {
        const next = queue.shift() ?? (await options.handler?.(request));
        if (next === undefined) {
          sendError(
            res,
            500,
            `mock: the Anthropic mock has no scripted response left for ` +
              `request #${requests.length} (${request.method} ${request.path})`,
          );
          return;
        }
        await respond(req, res, request, next);
      })().catch((error: unknown) => {
        if (!res.headersSent) sendError(res, 500, `mock: the Anthropic mock failed: ${String(error)}`);
        else res.destroy();
      });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
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
