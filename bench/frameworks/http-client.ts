// The application in front of toolgate's HTTP server, in a process of its own
// (as the mock model is): its CPU is the client's, not the server's, and on
// a machine with few cores it does not queue behind the server for its turn.
// Started by the HTTP runners with an IPC channel. For each `run` message it
// POSTs /v1/runs?stream=true and reads the run's SSE stream in the answer to
// its end; it reports the first answer text (with the monotonic clock, which every
// process on the machine shares) and the end of the run.
import type { ClientReply, ClientRequest } from './http-client-protocol.ts';

interface StoredEvent {
  type: string;
  data: { output?: string; error?: unknown };
}

function reply(message: ClientReply): void {
  process.send?.(message);
}

/** Reads the run's event stream to its end; returns the terminal event. */
async function follow(response: Response, onText: () => void): Promise<StoredEvent | undefined> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let terminal: StoredEvent | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return terminal;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const type = /^event: (.*)$/m.exec(frame)?.[1];
      if (type === 'assistant_delta') onText();
      else if (type === 'run_completed' || type === 'run_failed' || type === 'run_cancelled') {
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        terminal = data === undefined ? { type, data: {} } : (JSON.parse(data) as StoredEvent);
      }
    }
  }
}

async function run(request: ClientRequest): Promise<void> {
  let first = true;
  // One request per run: the run is created and its event stream follows in the answer (`?stream=true`).
  const events = await fetch(`${request.url}/v1/runs?stream=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ input: request.input }),
  });
  if (!events.ok || !(events.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    throw new Error(`POST /v1/runs?stream=true answered ${events.status}: ${await events.text()}`);
  }
  const end = await follow(events, () => {
    if (!first) return;
    first = false;
    reply({ type: 'text', id: request.id, at: process.hrtime.bigint().toString() });
  });
  if (end?.type !== 'run_completed') throw new Error(`the run ended ${end?.type ?? 'without a terminal event'}: ${JSON.stringify(end?.data.error)}`);
  reply({ type: 'done', id: request.id, output: end.data.output ?? '' });
}

process.on('message', (message: ClientRequest) => {
  run(message).catch((error: unknown) => reply({ type: 'failed', id: message.id, error: error instanceof Error ? error.message : String(error) }));
});
// The runner ends this process by closing the channel.
process.on('disconnect', () => process.exit(0));
reply({ type: 'ready' });
