// toolgate through its HTTP server, as a client reaches it: startHttpServer
// with a RunManager over createToolgate (the store chosen by `store`) in this
// process; the client (http-client.ts) in a process of its own, as the mock
// model is, POSTs /v1/runs per run, then reads the run's SSE stream
// /v1/runs/{id}/events until the run ends. This process's figures are the
// server's: the client's CPU is not counted, and it does not compete with the
// server for this process's event loop.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ClientReply, ClientRequest } from '../http-client-protocol.ts';
import type { Runner, RunnerOptions } from '../runner.ts';
import { CONCURRENCY, PROMPT } from '../workload.ts';
import { loadToolgate } from '../toolgate-package.ts';
import { openToolgate } from './toolgate-setup.ts';

const { RunManager, startHttpServer } = await loadToolgate();

// Built (harness-build.ts), the client sits where its source does, as .js.
const CLIENT = fileURLToPath(
  new URL(import.meta.url.endsWith('.js') ? '../http-client.js' : '../http-client.ts', import.meta.url),
);

interface Pending {
  resolve: (output: string) => void;
  reject: (error: Error) => void;
  onText: (at?: number) => void;
}

/** The client process (http-client.ts), once it says it is ready. */
async function startClient(pending: Map<number, Pending>): Promise<ChildProcess> {
  const child = fork(CLIENT, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  child.on('message', (message: ClientReply) => {
    if (message.type === 'ready') return;
    const waiting = pending.get(message.id);
    if (waiting === undefined) return;
    if (message.type === 'text') {
      // The monotonic clock is the same in every process: the time it saw the text, on this process's performance
      // clock.
      waiting.onText(performance.now() - Number(process.hrtime.bigint() - BigInt(message.at)) / 1e6);
      return;
    }
    pending.delete(message.id);
    if (message.type === 'done') waiting.resolve(message.output);
    else waiting.reject(new Error(message.error));
  });
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`the HTTP client process exited (${String(code)}) before it was ready`)),
    );
    child.once('message', () => resolve());
  });
  child.removeAllListeners('exit');
  child.on('exit', (code) => {
    for (const waiting of pending.values())
      waiting.reject(new Error(`the HTTP client process exited (${String(code)})`));
    pending.clear();
  });
  return child;
}

/**
 * The server over `store` (a createToolgate store string); `cleanup` runs once all is closed, even when closing fails.
 * `protocol`: how the client asks — the runs API (default) or the OpenAI-compatible chat completions route.
 */
export async function serverRunner(
  options: RunnerOptions,
  setup: { store: string; cleanup?: () => void | Promise<void>; protocol?: ClientRequest['protocol'] },
): Promise<Runner> {
  const { store, cleanup = () => undefined, protocol = 'runs' } = setup;
  const pending = new Map<number, Pending>();
  const [toolgate, client] = await Promise.all([openToolgate(options, store), startClient(pending)]);
  // The default (4 runs at a time) would queue the concurrent workload's runs behind each other.
  const manager = new RunManager({ toolgate, concurrency: CONCURRENCY });
  const server = await startHttpServer({ service: manager, store: toolgate.store, apiKeys: [], port: 0 });
  await manager.recover();
  let next = 0;
  return {
    run(onText) {
      const request: ClientRequest = { id: ++next, url: server.url, input: PROMPT, protocol, stream: options.stream };
      return new Promise<string>((resolve, reject) => {
        pending.set(request.id, { resolve, reject, onText });
        client.send(request);
      });
    },
    async close() {
      try {
        client.disconnect();
        await server.close({ graceMs: 100 });
        await manager.shutdown({ graceMs: 100 });
        await toolgate.close();
      } finally {
        await cleanup();
      }
    },
  };
}
