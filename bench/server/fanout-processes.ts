// The processes of the fan-out bench: server instances (fanout-server.ts),
// subscriber processes (fanout-subscribers.ts) and the HTTP client of the
// frameworks bench (../frameworks/http-client.ts), each forked with an IPC channel.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DATABASE_URL_ENV } from '../frameworks/postgres-database.ts';
import type { ServerCommand, ServerReply, SubscriberCommand, SubscriberReply } from './fanout-protocol.ts';

const SERVER = fileURLToPath(new URL('./fanout-server.ts', import.meta.url));
const SUBSCRIBERS = fileURLToPath(new URL('./fanout-subscribers.ts', import.meta.url));
const CLIENT = fileURLToPath(new URL('../frameworks/http-client.ts', import.meta.url));

/** A forked process and its replies, taken one at a time by `next`. */
export class Forked<Command extends object, Reply extends { type: string }> {
  readonly #child: ChildProcess;
  readonly #replies: Reply[] = [];
  #waiter: (() => void) | undefined;
  #exit: string | undefined;

  constructor(child: ChildProcess) {
    this.#child = child;
    child.on('message', (message: Reply) => {
      this.#replies.push(message);
      this.#waiter?.();
    });
    child.on('exit', (code) => {
      this.#exit = `exited (${String(code)})`;
      this.#waiter?.();
    });
  }

  get child(): ChildProcess {
    return this.#child;
  }

  send(command: Command): void {
    this.#child.send(command);
  }

  /** The next reply of type `type` (others before it are dropped); a `failed` reply or an exit throws. */
  async next<T extends Reply['type']>(type: T, timeoutMs = 120_000): Promise<Extract<Reply, { type: T }>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const reply = this.#replies.shift();
      if (reply !== undefined) {
        if (isOfType(reply, type)) return reply;
        if (reply.type === 'failed') throw new Error(`child failed: ${JSON.stringify(reply)}`);
        continue;
      }
      if (this.#exit !== undefined) throw new Error(`child ${this.#exit} before replying ${type}`);
      if (Date.now() > deadline) throw new Error(`no ${type} reply within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        this.#waiter = resolve;
        setTimeout(resolve, 1000).unref();
      });
      this.#waiter = undefined;
    }
  }

  async close(): Promise<void> {
    if (this.#exit !== undefined) return;
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.disconnect();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

function isOfType<R extends { type: string }, T extends R['type']>(
  reply: R,
  type: T,
): reply is Extract<R, { type: T }> {
  return reply.type === type;
}

export type ServerProcess = Forked<ServerCommand, ServerReply> & { url: string };

/** A server instance on the database at `databaseUrl`: `sse` or `runs` (then with the mock model's URL). */
export async function startServer(options: {
  databaseUrl: string;
  mode: 'sse' | 'runs';
  mockUrl?: string;
}): Promise<ServerProcess> {
  const args = options.mode === 'runs' ? ['runs', options.mockUrl ?? ''] : ['sse'];
  const child = fork(SERVER, args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // The sources, not dist/: this bench measures the server code of this checkout.
    env: { ...process.env, [DATABASE_URL_ENV]: options.databaseUrl, BENCH_TOOLGATE: 'src' },
  });
  const forked = new Forked<ServerCommand, ServerReply>(child);
  const ready = await forked.next('ready');
  return Object.assign(forked, { url: ready.url });
}

export function startSubscribers(): Forked<SubscriberCommand, SubscriberReply> {
  return new Forked(fork(SUBSCRIBERS, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
}

/** The frameworks bench's HTTP client: POST /v1/runs?stream=true and the run's SSE to its end, per request. */
export async function startClient(): Promise<ChildProcess> {
  const child = fork(CLIENT, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the HTTP client exited (${String(code)}) before it was ready`)));
  });
  child.removeAllListeners('exit');
  return child;
}
