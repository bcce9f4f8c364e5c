// toolgate through its HTTP server, as a client reaches it: startHttpServer
// with a RunManager over createToolgate (the store chosen by `store`) in this
// same process; per run the client POSTs /v1/runs, then reads the run's SSE
// stream /v1/runs/{id}/events until the run ends.
import type { Runner, RunnerOptions } from '../runner.ts';
import { CONCURRENCY, PROMPT } from '../workload.ts';
import { loadToolgate } from '../toolgate-package.ts';
import { openToolgate } from './toolgate-setup.ts';

const { RunManager, startHttpServer } = await loadToolgate();

interface StoredEvent {
  type: string;
  data: { output?: string; error?: unknown };
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

/** The server over `store` (a createToolgate store string); `cleanup` runs once all is closed, even when closing fails. */
export async function serverRunner(options: RunnerOptions, store: string, cleanup: () => void | Promise<void> = () => undefined): Promise<Runner> {
  const toolgate = await openToolgate(options, store);
  // The default (4 runs at a time) would queue the concurrent workload's runs behind each other.
  const manager = new RunManager({ toolgate, concurrency: CONCURRENCY });
  const server = await startHttpServer({ service: manager, store: toolgate.store, apiKeys: [], port: 0 });
  await manager.recover();
  const headers = { 'content-type': 'application/json' };
  return {
    async run(onText) {
      const created = await fetch(`${server.url}/v1/runs`, { method: 'POST', headers, body: JSON.stringify({ input: PROMPT }) });
      if (created.status !== 201) throw new Error(`POST /v1/runs answered ${created.status}: ${await created.text()}`);
      const { id } = (await created.json()) as { id: string };
      const events = await fetch(`${server.url}/v1/runs/${id}/events`, { headers: { accept: 'text/event-stream' } });
      if (!events.ok) throw new Error(`GET /v1/runs/${id}/events answered ${events.status}: ${await events.text()}`);
      const end = await follow(events, onText);
      if (end?.type !== 'run_completed') throw new Error(`run ${id} ended ${end?.type ?? 'without a terminal event'}: ${JSON.stringify(end?.data.error)}`);
      return end.data.output ?? '';
    },
    async close() {
      try {
        await server.close({ graceMs: 100 });
        await manager.shutdown({ graceMs: 100 });
        await toolgate.close();
      } finally {
        await cleanup();
      }
    },
  };
}
