// A scriptable stand-in for Ollama's native chat API (POST /api/chat), for
// tests. It records every request, refuses the ones Ollama refuses (with its
// `{"error": "..."}` bodies and status codes, before touching the queue), and
// answers the rest from a queue of scripted responses rendered the way Ollama
// renders them: NDJSON chunks (streaming is Ollama's default when `stream` is
// absent) or one JSON object for `stream: false`. Tool calls arrive whole,
// arguments as objects. Writes stop as soon as the client goes away, which
// `disconnected` records. See test/fixtures/contract/ollama/README.md for the
// wire format this follows.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockTimers, send, sendJson as writeJson, sendRaw, sendText } from './mock-http.ts';
import { splitPieces, type RecordedRequest } from './mock-openai-server.ts';
import { checkOllamaRequest } from './ollama-request-check.ts';

export type { RecordedRequest } from './mock-openai-server.ts';

export interface MockOllamaToolCall {
  name: string;
  /**
   * The arguments as the model wrote them. Sent as a JSON object; when they do
   * not parse, Ollama's parser cannot read the call either and it reaches the
   * client as content text: `{"name": "<name>", "arguments": <the raw string>}`.
   */
  arguments: string;
}

/** A normal answer: NDJSON chunks unless the request said `stream: false`. */
export interface MockOllamaCompletion {
  text?: string;
  /** Sent as `message.thinking`, before the content. */
  reasoning?: string;
  toolCalls?: MockOllamaToolCall[];
  /** stop (default, even when tools were called), length, load... */
  doneReason?: string;
  usage?: { promptTokens: number; completionTokens: number };
  /**
   * Leave the counts out of the final chunk: `true` both, `prompt` only `prompt_eval_count` (as Ollama does for a
   * prompt it had cached).
   */
  omitUsage?: true | 'prompt';
  /** Pause between chunks (to cancel or time out mid-stream). */
  chunkDelayMs?: number;
}

/**
 * An HTTP error. `body` is sent as JSON (a string as plain text); default: `{"error": "..."}` with Ollama's usual
 * wording for the status.
 */
export interface MockOllamaError {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Exact bytes, e.g. a fixture. `chunkSize` writes them in pieces of that many bytes. */
export interface MockOllamaRaw {
  raw: string;
  contentType?: string;
  status?: number;
  chunkSize?: number;
  headers?: Record<string, string>;
}

/**
 * A stream that sends `afterText`, then a `{"error": ...}` line and ends (a non-streamed request gets a 500 with that
 * error).
 */
export interface MockOllamaStreamError {
  streamError: string;
  afterText?: string;
}

/** Content chunks repeating `text` (default "la ") forever, never `done`. */
export interface MockOllamaEndlessStream {
  endlessStream: true;
  text?: string;
  chunkDelayMs?: number;
}

export type MockOllamaResponse =
  | MockOllamaCompletion
  | MockOllamaError
  | MockOllamaRaw
  | MockOllamaStreamError
  | MockOllamaEndlessStream
  | { dropConnection: true }
  | { delayMs: number; then: MockOllamaResponse };

export interface MockOllama {
  /** The host root, e.g. http://127.0.0.1:PORT: the adapter appends /api/chat. */
  url: string;
  requests: RecordedRequest[];
  enqueue(...responses: MockOllamaResponse[]): void;
  /** Scripted responses not yet used (a test that leaves some behind did not do what it meant). */
  remaining(): number;
  close(): Promise<void>;
}

export interface MockOllamaOptions {
  responses?: MockOllamaResponse[];
  /** Answers requests once the queue is empty. */
  handler?: (request: RecordedRequest) => MockOllamaResponse | Promise<MockOllamaResponse>;
  /**
   * The models "pulled" here, listed by GET /api/tags; a chat with another model gets Ollama's 404. Unset: every model
   * exists (and /api/tags lists none).
   */
  models?: string[];
  /** Models without tool support: a chat with `tools` gets Ollama's 400 "does not support tools". */
  noTools?: string[];
}

/** The version GET /api/version reports. */
export const MOCK_OLLAMA_VERSION = '0.32.15';

/** A safety net for endless streams: a client that never stops reading still ends the test. */
const RUNAWAY_CAP_BYTES = 256 * 1024 * 1024;
/** Ollama's Go server (gin) answers JSON with this type, streams with application/x-ndjson. */
const JSON_TYPE = 'application/json; charset=utf-8';
const NDJSON_TYPE = 'application/x-ndjson';

/** Ollama's wording for a scripted error status that has one usual cause. */
function defaultError(status: number, model: string): string {
  switch (status) {
    case 400:
      return 'model is required';
    case 401:
      return 'unauthorized';
    case 404:
      return `model '${model}' not found`;
    case 429:
      return 'too many requests';
    case 500:
      return 'llama-server process has terminated: exit status 2';
    case 503:
      return 'server busy, please try again.  maximum pending requests exceeded';
    default:
      return `mock error ${status}`;
  }
}

/** Durations (nanoseconds) in proportion to the token counts, like a small local model. */
function metrics(promptTokens: number, completionTokens: number): Record<string, number> {
  const load = 14_822_125;
  const promptEval = promptTokens * 1_912_500;
  const evaluation = completionTokens * 21_437_000;
  return {
    total_duration: load + promptEval + evaluation + 1_208_333,
    load_duration: load,
    prompt_eval_count: promptTokens,
    prompt_eval_duration: promptEval,
    eval_count: completionTokens,
    eval_duration: evaluation,
  };
}

function parseObject(text: string): Record<string, unknown> | undefined {
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
  if (!Array.isArray(tools)) return [];
  return tools
    .map((t) => (t as { function?: { name?: unknown } } | null)?.function?.name)
    .filter((n): n is string => typeof n === 'string');
}

/** Go's decoder names the first bad character; this approximates it from the JS parser's position. */
function goSyntaxError(text: string, error: unknown): string {
  const position = /position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
  const char = position === undefined ? text.trim()[0] : text[Number(position)];
  return char === undefined ? 'unexpected EOF' : `invalid character '${char}' looking for beginning of value`;
}

function tagEntry(name: string): Record<string, unknown> {
  const display = name.includes(':') ? name : `${name}:latest`;
  const family = /^[a-z]+/i.exec(display.split('/').pop() ?? '')?.[0]?.toLowerCase() ?? 'llama';
  return {
    name: display,
    model: display,
    modified_at: '2026-03-02T10:41:07.113824+01:00',
    size: 4_683_087_332,
    digest: createHash('sha256').update(display).digest('hex'),
    details: {
      parent_model: '',
      format: 'gguf',
      family,
      families: [family],
      parameter_size: '7.6B',
      quantization_level: 'Q4_K_M',
    },
  };
}

export async function startMockOllama(options: MockOllamaOptions = {}): Promise<MockOllama> {
  const queue: MockOllamaResponse[] = [...(options.responses ?? [])];
  const requests: RecordedRequest[] = [];
  const timers = new MockTimers();
  const wait = (ms: number): Promise<void> => timers.wait(ms);
  const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void =>
    writeJson(res, status, body, { 'content-type': JSON_TYPE, ...headers });
  let counter = 0;

  const modelOf = (request: RecordedRequest): string =>
    typeof request.body?.model === 'string' ? request.body.model : 'mock-model';

  /** Ollama's tool-call ids: "call_" and eight lower-case letters or digits. */
  const callId = (): string => {
    counter += 1;
    return `call_${counter.toString(36).padStart(8, '0')}`;
  };

  const chunk = (
    model: string,
    message: Record<string, unknown>,
    done = false,
    extra: Record<string, unknown> = {},
  ): Record<string, unknown> => ({
    model,
    created_at: new Date().toISOString(),
    message: { role: 'assistant', content: '', ...message },
    done,
    ...extra,
  });

  const completion = async (res: ServerResponse, request: RecordedRequest, r: MockOllamaCompletion): Promise<void> => {
    const model = modelOf(request);
    const text = r.text ?? '';
    const parsed = (r.toolCalls ?? []).map((c) => ({ ...c, args: parseObject(c.arguments) }));
    const offered = offeredTools(request.body);
    const unoffered = parsed.find((c) => !offered.includes(c.name));
    if (unoffered !== undefined) {
      sendJson(res, 500, {
        error:
          `mock: the script calls tool "${unoffered.name}" but the request offers ` +
          (`${offered.length === 0 ? 'no tools' : `only ${offered.join(', ')}`}; ` +
            `Ollama only parses tool calls for tools it was given`),
      });
      return;
    }
    const calls = parsed
      .filter((c) => c.args !== undefined)
      .map((c, index) => ({ id: callId(), function: { index, name: c.name, arguments: c.args } }));
    // Calls Ollama's parser could not read reach the client as the model's text.
    const unread = parsed
      .filter((c) => c.args === undefined)
      .map((c) => `{"name": ${JSON.stringify(c.name)}, "arguments": ${c.arguments}}`);
    const promptTokens = r.usage?.promptTokens ?? Math.ceil(JSON.stringify(request.body?.messages ?? []).length / 4);
    const completionTokens =
      r.usage?.completionTokens ??
      Math.max(
        1,
        Math.ceil(
          (text.length + (r.reasoning ?? '').length + (r.toolCalls ?? []).reduce((n, c) => n + c.arguments.length, 0)) /
            4,
        ),
      );
    const doneReason = r.doneReason ?? 'stop';
    const counts = metrics(promptTokens, completionTokens);
    if (r.omitUsage !== undefined) delete counts['prompt_eval_count'];
    if (r.omitUsage === true) delete counts['eval_count'];
    const final = { done_reason: doneReason, ...counts };

    if (request.body?.stream === false) {
      const message: Record<string, unknown> = { content: text + unread.join('') };
      if (r.reasoning !== undefined) message['thinking'] = r.reasoning;
      if (calls.length > 0) message['tool_calls'] = calls;
      sendJson(res, 200, chunk(model, message, true, final));
      return;
    }

    const lines: Record<string, unknown>[] = [];
    for (const piece of splitPieces(r.reasoning ?? '')) lines.push(chunk(model, { thinking: piece }));
    for (const piece of splitPieces(text)) lines.push(chunk(model, { content: piece }));
    // After text the parser has given up looking for calls, so a call's text streams on as content;
    // a call at the very start is held back until its braces close, then released whole.
    if (text === '') for (const call of unread) lines.push(chunk(model, { content: call }));
    else for (const piece of splitPieces(unread.join(''))) lines.push(chunk(model, { content: piece }));
    if (calls.length > 0) lines.push(chunk(model, { tool_calls: calls }));
    lines.push(chunk(model, {}, true, final));

    res.writeHead(200, { 'content-type': NDJSON_TYPE });
    for (const line of lines) {
      if (!(await send(res, `${JSON.stringify(line)}\n`))) return;
      if (r.chunkDelayMs !== undefined && r.chunkDelayMs > 0) await wait(r.chunkDelayMs);
    }
    res.end();
  };

  const streamError = async (
    res: ServerResponse,
    request: RecordedRequest,
    r: MockOllamaStreamError,
  ): Promise<void> => {
    if (request.body?.stream === false) {
      sendJson(res, 500, { error: r.streamError });
      return;
    }
    res.writeHead(200, { 'content-type': NDJSON_TYPE });
    for (const piece of splitPieces(r.afterText ?? '')) {
      if (!(await send(res, `${JSON.stringify(chunk(modelOf(request), { content: piece }))}\n`))) return;
    }
    if (await send(res, `${JSON.stringify({ error: r.streamError })}\n`)) res.end();
  };

  const endlessStream = async (
    res: ServerResponse,
    request: RecordedRequest,
    r: MockOllamaEndlessStream,
  ): Promise<void> => {
    const pieces = splitPieces(r.text === undefined || r.text === '' ? 'la ' : r.text);
    res.writeHead(200, { 'content-type': NDJSON_TYPE });
    for (let sent = 0, k = 0; sent < RUNAWAY_CAP_BYTES; k += 1) {
      const line = `${JSON.stringify(chunk(modelOf(request), { content: pieces[k % pieces.length] }))}\n`;
      if (!(await send(res, line))) return;
      sent += line.length;
      if (r.chunkDelayMs !== undefined && r.chunkDelayMs > 0) await wait(r.chunkDelayMs);
      else if (k % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  };

  const respond = async (
    req: IncomingMessage,
    res: ServerResponse,
    request: RecordedRequest,
    r: MockOllamaResponse,
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
      const lines = r.raw.split('\n').filter((line) => line.trim() !== '').length;
      const contentType =
        r.contentType ?? (lines > 1 ? NDJSON_TYPE : /^\s*[[{]/.test(r.raw) ? JSON_TYPE : 'text/plain; charset=utf-8');
      res.writeHead(r.status ?? 200, { 'content-type': contentType, ...r.headers });
      await sendRaw(res, r.raw, r.chunkSize);
      return;
    }
    if ('streamError' in r) return streamError(res, request, r);
    if ('endlessStream' in r) return endlessStream(res, request, r);
    if ('status' in r) {
      const body = r.body ?? { error: defaultError(r.status, modelOf(request)) };
      if (typeof body === 'string') sendText(res, r.status, body, r.headers);
      else sendJson(res, r.status, body, r.headers);
      return;
    }
    await completion(res, request, r);
  };

  const chat = (
    req: IncomingMessage,
    res: ServerResponse,
    request: RecordedRequest,
    jsonError: string | undefined,
  ): void => {
    if (jsonError !== undefined) {
      sendJson(res, 400, { error: jsonError });
      return;
    }
    const problem = checkOllamaRequest(request.body, {
      ...(options.models === undefined ? {} : { models: options.models }),
      noTools: options.noTools ?? [],
    });
    if (problem !== undefined) {
      sendJson(res, problem.status, { error: problem.error });
      return;
    }
    const messages: unknown = request.body?.messages;
    if (!Array.isArray(messages) || messages.length === 0) {
      // No messages only loads (or, with keep_alive 0, unloads) the model: nothing is generated.
      const unload = request.body?.keep_alive === 0 || request.body?.keep_alive === '0';
      sendJson(res, 200, chunk(modelOf(request), {}, true, { done_reason: unload ? 'unload' : 'load' }));
      return;
    }
    void (async () => {
      const next = queue.shift() ?? (await options.handler?.(request));
      if (next === undefined) {
        sendJson(res, 500, {
          error:
            `mock: the Ollama mock has no scripted response left for ` +
            `request #${requests.length} (${request.method} ${request.path})`,
        });
        return;
      }
      await respond(req, res, request, next);
    })().catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: `mock: the Ollama mock failed: ${String(error)}` });
      else res.destroy();
    });
  };

  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      let body: unknown;
      let jsonError: string | undefined;
      try {
        body = text.trim() === '' ? undefined : JSON.parse(text);
      } catch (error) {
        body = text;
        jsonError = goSyntaxError(text, error);
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
      const route = `${request.method} ${request.path.split('?')[0] ?? ''}`;
      switch (route) {
        case 'POST /api/chat':
          chat(req, res, request, jsonError);
          return;
        case 'GET /api/tags':
        case 'HEAD /api/tags':
          sendJson(res, 200, { models: (options.models ?? []).map(tagEntry) });
          return;
        case 'GET /api/version':
        case 'HEAD /api/version':
          sendJson(res, 200, { version: MOCK_OLLAMA_VERSION });
          return;
        case 'GET /':
        case 'HEAD /':
          sendText(res, 200, 'Ollama is running');
          return;
        default:
          // gin's default for an unknown route (or method) is a plain-text 404.
          sendText(res, 404, '404 page not found');
      }
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
