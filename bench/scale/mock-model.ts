// The scale benchmark's model: an OpenAI-compatible `/v1/chat/completions`
// server in a process of its own (its CPU is not charged to the process
// measured). What it does is read from the run's prompt, `run=<tag> steps=<n>
// delay=<ms>`: `steps` turns that each call the first tool offered with
// {"key":"k<turn>"}, then the answer; every answer after `delay` ms. It also
// measures toolgate's step latency on its own clock: for each run, the time
// from the end of one answer to the arrival of the run's next request (the
// model's own time excluded by construction). GET /gaps answers the gaps
// gathered since the last GET (ms) and forgets them; a run is forgotten at its
// last turn, so nothing grows with the runs it served.
// `node bench/scale/mock-model.ts` prints its URL (ending in /v1).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { runQueueWaitMs } from './run-queue.ts';

const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };
const USAGE = { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 };

interface ChatRequest {
  messages?: { role?: string; content?: unknown }[];
  tools?: { function?: { name?: string } }[];
  stream?: boolean;
}

/** When each run's last answer ended (ms, monotonic), by its tag. */
const lastAnswer = new Map<string, number>();
let gaps: number[] = [];
/** How late the answers' timers fired (ms): the mock's own lag, which it would charge to the next gap's start. */
let lateness: number[] = [];
/** The mock's event-loop delay since the last GET /gaps: a request waiting for it arrives late. */
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
/** Connections opened since the last GET /gaps: a run that opens one per call pays a connect per step. */
let connections = 0;
let since = { at: performance.now(), runQueueMs: runQueueWaitMs() ?? 0 };

function param(prompt: string, name: string): string | undefined {
  return new RegExp(`${name}=(\\S+)`).exec(prompt)?.[1];
}

function promptOf(body: ChatRequest): string {
  const first = body.messages?.find((m) => m.role === 'user');
  return typeof first?.content === 'string' ? first.content : JSON.stringify(first?.content ?? '');
}

function reply(res: ServerResponse, body: ChatRequest, turn: number, steps: number): void {
  const id = `chatcmpl-scale-${turn}`;
  const tool = body.tools?.[0]?.function?.name;
  const final = turn >= steps || tool === undefined;
  const call = { id: `call_${turn}`, type: 'function', function: { name: tool, arguments: `{"key":"k${turn}"}` } };
  if (body.stream !== true) {
    const message = final
      ? { role: 'assistant', content: 'done' }
      : { role: 'assistant', content: null, tool_calls: [call] };
    const finish = final ? 'stop' : 'tool_calls';
    res.writeHead(200, JSON_HEADERS);
    res.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        model: 'mock',
        choices: [{ index: 0, message, finish_reason: finish }],
        usage: USAGE,
      }),
    );
    return;
  }
  const chunk = (delta: unknown, finish: string | null = null): string => {
    const choices = [{ index: 0, delta, finish_reason: finish }];
    return `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', model: 'mock', choices })}\n\n`;
  };
  const first = final
    ? chunk({ role: 'assistant', content: 'done' })
    : chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, ...call }] });
  res.writeHead(200, SSE_HEADERS);
  res.end(first + chunk({}, final ? 'stop' : 'tool_calls') + 'data: [DONE]\n\n');
}

function answer(res: ServerResponse, raw: string, arrived: number): void {
  const body = JSON.parse(raw) as ChatRequest;
  const prompt = promptOf(body);
  const tag = param(prompt, 'run') ?? '';
  const steps = Number(param(prompt, 'steps') ?? '1');
  const delayMs = Number(param(prompt, 'delay') ?? '0');
  const turn = (body.messages ?? []).filter((m) => m.role === 'assistant').length;
  const before = lastAnswer.get(tag);
  if (turn > 0 && before !== undefined) gaps.push(arrived - before);
  const due = performance.now() + delayMs;
  const send = (): void => {
    lateness.push(performance.now() - due);
    reply(res, body, turn, steps);
    if (turn >= steps) lastAnswer.delete(tag);
    else lastAnswer.set(tag, performance.now());
  };
  if (delayMs > 0) setTimeout(send, delayMs);
  else send();
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const arrived = performance.now();
  if (req.method === 'GET' && req.url === '/gaps') {
    res.writeHead(200, JSON_HEADERS);
    const loop = { p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 };
    const now = { at: performance.now(), runQueueMs: runQueueWaitMs() ?? 0 };
    // Share of the wall time the mock was ready to run but waited for a CPU.
    const runQueueShare = (now.runQueueMs - since.runQueueMs) / Math.max(1, now.at - since.at);
    since = now;
    res.end(JSON.stringify({ gaps, lateness, loop, runQueueShare, connections, open: lastAnswer.size }));
    connections = 0;
    gaps = [];
    lateness = [];
    loopDelay.reset();
    return;
  }
  const parts: Buffer[] = [];
  req.on('data', (part: Buffer) => parts.push(part));
  req.on('end', () => {
    try {
      answer(res, Buffer.concat(parts).toString('utf8'), arrived);
    } catch (error) {
      res.writeHead(400, JSON_HEADERS);
      res.end(JSON.stringify({ error: { message: String(error) } }));
    }
  });
}

const server = createServer(handle);
server.on('connection', () => (connections += 1));
// Short by default: connections left idle by runs that went on waiting close soon, so that a census of what
// waiting runs hold does not count the model's sockets and their timers. The runs driven concurrently get a model
// that keeps them as providers do (`--keep-alive-ms`): with 2 s, undici closes a connection idle for 1 s, and a run
// whose step waits that long for a busy process pays a new connection for its next call.
const keepAliveArg = process.argv.indexOf('--keep-alive-ms');
server.keepAliveTimeout = keepAliveArg === -1 ? 2_000 : Number(process.argv[keepAliveArg + 1]);
server.maxConnections = 10_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(`http://127.0.0.1:${port}/v1`);
});
// Goes when its parent does.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
