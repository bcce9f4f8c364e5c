// SSE subscribers of the fan-out bench (fanout-bench.ts), in a process of
// their own so that the servers' CPU is theirs. Forked with an IPC channel.
// {type:'connect'} opens `count` connections to GET /v1/runs/{id}/events,
// spread over the given URLs (one per server instance), a wave at a time; each
// connection checks that every event's id follows the one before (a gap, a
// duplicate or a reorder is a violation) and notes when each event arrived on
// the monotonic clock every process shares. {type:'collect'} waits for every
// stream to end (the run's terminal event) and answers with the latencies.
import { request, type ClientRequest as HttpRequest, type IncomingMessage } from 'node:http';
import { sharedNow, type SubscriberCommand, type SubscriberReply } from './fanout-protocol.ts';

const WAVE = 200;

interface Stream {
  last: number;
  ended: boolean;
  res?: IncomingMessage;
  req?: HttpRequest;
}

const streams: Stream[] = [];
/** Arrival times by event id, one entry per subscriber that got it. */
const arrivals = new Map<number, number[]>();
let violations = 0;

function reply(message: SubscriberReply): void {
  process.send?.(message);
}

function onFrame(stream: Stream, frame: string, at: number): void {
  const match = /^id: (\d+)$/m.exec(frame);
  if (match?.[1] === undefined) return;
  const id = Number(match[1]);
  if (id !== stream.last + 1) violations++;
  stream.last = id;
  let list = arrivals.get(id);
  if (list === undefined) arrivals.set(id, (list = []));
  list.push(at);
}

function open(url: string): Promise<boolean> {
  const stream: Stream = { last: 0, ended: false };
  streams.push(stream);
  return new Promise((resolve) => {
    const req = request(url, { agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
      stream.res = res;
      if (res.statusCode !== 200) {
        res.resume();
        stream.ended = true;
        resolve(false);
        return;
      }
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const at = sharedNow();
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          onFrame(stream, buffer.slice(0, end), at);
          buffer = buffer.slice(end + 2);
        }
      });
      res.on('end', () => (stream.ended = true));
      res.on('error', () => (stream.ended = true));
      resolve(true);
    });
    stream.req = req;
    req.on('error', () => {
      stream.ended = true;
      resolve(false);
    });
    req.end();
  });
}

async function connect(urls: string[], count: number): Promise<void> {
  let connected = 0;
  let failed = 0;
  for (let start = 0; start < count; start += WAVE) {
    const wave = Array.from({ length: Math.min(WAVE, count - start) }, (_, i) => urls[(start + i) % urls.length] ?? '');
    for (const ok of await Promise.all(wave.map(open))) {
      if (ok) connected++;
      else failed++;
    }
  }
  reply({ type: 'connected', connected, failed });
}

async function collect(command: Extract<SubscriberCommand, { type: 'collect' }>): Promise<void> {
  const deadline = Date.now() + command.timeoutMs;
  while (Date.now() < deadline && streams.some((s) => !s.ended || s.last < command.lastId)) {
    if (streams.every((s) => s.ended)) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const latencies: number[] = [];
  for (const [i, sent] of command.sentAt.entries()) {
    for (const at of arrivals.get(command.firstId + i) ?? []) latencies.push(at - sent);
  }
  const incomplete = streams.filter((s) => s.last !== command.lastId).length;
  for (const s of streams) s.req?.destroy();
  reply({ type: 'result', latencies, violations, incomplete, streams: streams.length });
}

process.on('message', (command: SubscriberCommand) => {
  if (command.type === 'connect') void connect(command.urls, command.count);
  else void collect(command);
});
process.on('disconnect', () => process.exit(0));
