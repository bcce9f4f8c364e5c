// The application in front of toolgate's HTTP server, in a process of its own
// (as the mock model is): its CPU is the client's, not the server's, and on
// a machine with few cores it does not queue behind the server for its turn.
// Started by the HTTP runners with an IPC channel. For each `run` message it
// POSTs /v1/runs?stream=true and reads the run's SSE stream in the answer to
// its end, over node:http: on two cores a client's CPU still takes turns with
// the server's and the mock's, so it is kept as light as a client can be. It reports the first answer text (with the
// monotonic clock, which every
// process on the machine shares) and the end of the run.
import { Agent, request as httpRequest } from 'node:http';
import type { ClientReply, ClientRequest } from './http-client-protocol.ts';
import { MODEL_NAME } from './runner.ts';

interface StoredEvent {
  type: string;
  data: { output?: string; error?: unknown };
}

function reply(message: ClientReply): void {
  process.send?.(message);
}

const agent = new Agent({ keepAlive: true });

/**
 * Starts a run and reads its event stream to the end (`POST /v1/runs?stream=true`: one
 * request per run); resolves with the terminal event.
 */
function startAndFollow(url: string, input: string, onText: () => void): Promise<StoredEvent | undefined> {
  const body = JSON.stringify({ input });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}/v1/runs?stream=true`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.setEncoding('utf8');
        let buffer = '';
        if (res.statusCode !== 200 || !(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          res.on('data', (chunk: string) => (buffer += chunk));
          res.on('end', () => reject(new Error(`POST /v1/runs?stream=true answered ${res.statusCode}: ${buffer}`)));
          return;
        }
        let terminal: StoredEvent | undefined;
        res.on('data', (chunk: string) => {
          buffer += chunk;
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
        });
        res.on('end', () => resolve(terminal));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** What an OpenAI chat completion (or a chunk) holds that the client reads. */
interface Completion {
  choices?: { message?: { content?: string | null }; delta?: { content?: string | null } }[];
  error?: unknown;
}

/**
 * Asks the OpenAI-compatible route, as an application written for OpenAI's API does: streamed chunks until
 * `data: [DONE]`, or one JSON completion. Resolves with the answer text.
 */
function chatCompletion(request: ClientRequest, onText: () => void): Promise<string> {
  const body = JSON.stringify({
    model: `openai:${MODEL_NAME}`,
    messages: [{ role: 'user', content: request.input }],
    stream: request.stream,
  });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${request.url}/v1/chat/completions`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.setEncoding('utf8');
        let buffer = '';
        let output = '';
        res.on('data', (chunk: string) => {
          buffer += chunk;
          if (!request.stream || res.statusCode !== 200) return;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = /^data: (.*)$/m.exec(frame)?.[1];
            if (data === undefined || data === '[DONE]') continue;
            const parsed = JSON.parse(data) as Completion;
            if (parsed.error !== undefined) return reject(new Error(`chunk with an error: ${data}`));
            const text = parsed.choices?.[0]?.delta?.content ?? '';
            if (text !== '') {
              onText();
              output += text;
            }
          }
        });
        res.on('end', () => {
          if (res.statusCode !== 200)
            return reject(new Error(`POST /v1/chat/completions: ${res.statusCode} ${buffer}`));
          if (request.stream) return resolve(output);
          const completion = JSON.parse(buffer) as Completion;
          resolve(completion.choices?.[0]?.message?.content ?? '');
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function run(request: ClientRequest): Promise<void> {
  let first = true;
  const onText = (): void => {
    if (!first) return;
    first = false;
    reply({ type: 'text', id: request.id, at: process.hrtime.bigint().toString() });
  };
  if (request.protocol === 'chat') {
    reply({ type: 'done', id: request.id, output: await chatCompletion(request, onText) });
    return;
  }
  const end = await startAndFollow(request.url, request.input, onText);
  if (end?.type !== 'run_completed')
    throw new Error(`the run ended ${end?.type ?? 'without a terminal event'}: ${JSON.stringify(end?.data.error)}`);
  reply({ type: 'done', id: request.id, output: end.data.output ?? '' });
}

process.on('message', (message: ClientRequest) => {
  run(message).catch((error: unknown) =>
    reply({ type: 'failed', id: message.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
// The runner ends this process by closing the channel.
process.on('disconnect', () => process.exit(0));
reply({ type: 'ready' });
