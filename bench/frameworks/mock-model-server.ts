// A lean OpenAI-compatible `/v1/chat/completions` server for the frameworks
// comparison. It answers at once, from the conversation alone: the number of
// assistant messages says which turn this is — TOOL_STEPS turns asking for
// `lookup` with {"key":"k<n>"}, then the answer. Streaming (SSE chunks shaped
// like OpenAI's: the answer in ten pieces, a tool call's arguments in three
// fragments, `[DONE]`) and not. Every answer is serialised once at start and
// nothing is kept per request, so its memory stays flat over any number of
// requests. It runs in a process of its own so that its CPU is not charged to
// the runner being measured: `node bench/frameworks/mock-model-server.ts
// [--port N] [--exit-on-stdin-end]` prints its URL (ending in /v1).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { ANSWER_PIECES, LOOKUP, TOOL_STEPS } from './workload.ts';

const CREATED = 1_700_000_000;
const MODEL = 'mock';
const USAGE = { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 };
const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };

interface Turn {
  /** The whole non-streaming body. */
  json: string;
  /** The whole SSE body, without and with the usage chunk (`stream_options.include_usage`). */
  sse: string;
  sseWithUsage: string;
}

function chunk(id: string, choices: unknown[], extra: Record<string, unknown> = {}): string {
  const body = {
    id,
    object: 'chat.completion.chunk',
    created: CREATED,
    model: MODEL,
    system_fingerprint: 'fp_mock',
    choices,
  };
  return `data: ${JSON.stringify({ ...body, ...extra })}\n\n`;
}

function delta(id: string, d: Record<string, unknown>, finish: string | null = null): string {
  return chunk(id, [{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);
}

function turn(n: number): Turn {
  const id = `chatcmpl-mock-${n}`;
  const finalTurn = n >= TOOL_STEPS;
  const callId = `call_${n}`;
  const args = `{"key":"k${n}"}`;
  const message = finalTurn
    ? { role: 'assistant', content: ANSWER_PIECES.join(''), refusal: null }
    : {
        role: 'assistant',
        content: null,
        refusal: null,
        tool_calls: [{ id: callId, type: 'function', function: { name: LOOKUP.name, arguments: args } }],
      };
  const finish = finalTurn ? 'stop' : 'tool_calls';
  const json = JSON.stringify({
    id,
    object: 'chat.completion',
    created: CREATED,
    model: MODEL,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
    usage: USAGE,
    system_fingerprint: 'fp_mock',
  });
  let body = '';
  if (finalTurn) {
    body += delta(id, { role: 'assistant', content: '', refusal: null });
    for (const piece of ANSWER_PIECES) body += delta(id, { content: piece });
  } else {
    body += delta(id, {
      role: 'assistant',
      content: null,
      tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: LOOKUP.name, arguments: '' } }],
    });
    for (const fragment of ['{"key"', ':"k', `${n}"}`])
      body += delta(id, { tool_calls: [{ index: 0, function: { arguments: fragment } }] });
  }
  body += delta(id, {}, finish);
  const done = 'data: [DONE]\n\n';
  return { json, sse: body + done, sseWithUsage: body + chunk(id, [], { usage: USAGE }) + done };
}

const TURNS: Turn[] = Array.from({ length: TOOL_STEPS + 1 }, (_, n) => turn(n));

interface ChatRequest {
  messages?: { role?: string; content?: unknown }[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
}

function fail(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, JSON_HEADERS);
  res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code: null } }));
}

/** The tool result the conversation must end with before turn n: what `lookup` returns for k<n-1>. */
function hasLookupResult(messages: { role?: string; content?: unknown }[], n: number): boolean {
  const last = messages[messages.length - 1];
  if (last?.role !== 'tool') return false;
  const text = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
  return text.includes(`value of k${n - 1}`);
}

function answer(res: ServerResponse, raw: string): void {
  let body: ChatRequest;
  try {
    body = JSON.parse(raw) as ChatRequest;
  } catch {
    fail(res, 400, 'the body is not JSON');
    return;
  }
  const messages = body.messages ?? [];
  let n = 0;
  for (const m of messages) if (m.role === 'assistant') n++;
  const current = TURNS[n];
  if (current === undefined) return fail(res, 400, `turn ${n}: the mock model answers after ${TOOL_STEPS} tool steps`);
  if (n > 0 && !hasLookupResult(messages, n))
    return fail(res, 400, `turn ${n}: the last message is not the result of lookup k${n - 1}`);
  if (body.stream === true) {
    res.writeHead(200, SSE_HEADERS);
    res.end(body.stream_options?.include_usage === true ? current.sseWithUsage : current.sse);
  } else {
    res.writeHead(200, JSON_HEADERS);
    res.end(current.json);
  }
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'POST' || !(req.url ?? '').endsWith('/chat/completions')) {
    fail(
      res,
      404,
      `${req.method ?? '?'} ${req.url ?? '?'}: this mock serves only POST /v1/chat/completions (not the Responses API)`,
    );
    req.resume();
    return;
  }
  const parts: Buffer[] = [];
  req.on('data', (part: Buffer) => parts.push(part));
  req.on('end', () => answer(res, Buffer.concat(parts).toString('utf8')));
}

export async function startMockModelServer(port = 0): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(handle);
  // Clients keep their connections between the steps of a run and between runs.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: actual } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${actual}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '0' }, 'exit-on-stdin-end': { type: 'boolean', default: false } },
  });
  const mock = await startMockModelServer(Number(values.port));
  console.log(mock.url);
  const stop = (): void => void mock.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // Started by compare.ts: goes when its parent does, even one that was killed.
  if (values['exit-on-stdin-end'] === true) {
    process.stdin.on('end', stop);
    process.stdin.resume();
  }
}
