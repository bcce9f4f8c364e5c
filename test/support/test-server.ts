/** Starts the runs API on 127.0.0.1 (a free port) over a TestRunService, for the server's tests. */
import type { RunStore } from '../../src/core/ports/run-store.ts';
import { startHttpServer, type RunningHttpServer } from '../../src/server/http-server.ts';
import type { HttpServerOptions, LogEntry } from '../../src/server/server-context.ts';
import { TestRunService } from './test-run-service.ts';

export interface TestServer {
  url: string;
  service: TestRunService;
  running: RunningHttpServer;
  logs: LogEntry[];
  /** fetch against the server with optional bearer key and JSON body. */
  call(
    path: string,
    init?: { method?: string; key?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>;
  close(): Promise<void>;
}

export interface TestServerOptions extends Partial<Omit<HttpServerOptions, 'service' | 'store' | 'log'>> {
  /** What the server reads events from, when not the service's store (to interleave or count calls). */
  eventStore?: HttpServerOptions['store'];
  /** Reuse a service (e.g. across a restart). */
  service?: TestRunService;
}

export async function startTestServer(store: RunStore, options: TestServerOptions = {}): Promise<TestServer> {
  const { eventStore, service: given, ...rest } = options;
  const service = given ?? new TestRunService(store);
  const logs: LogEntry[] = [];
  const running = await startHttpServer({
    service,
    store: eventStore ?? store,
    apiKeys: [],
    ...rest,
    port: 0,
    log: (entry) => logs.push(entry),
  });
  return {
    url: running.url,
    service,
    running,
    logs,
    call: (path, init = {}) => {
      const headers: Record<string, string> = { ...init.headers };
      if (init.key !== undefined) headers['Authorization'] = `Bearer ${init.key}`;
      let body: string | undefined;
      if (init.body !== undefined) {
        body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
        headers['Content-Type'] ??= 'application/json';
      }
      return fetch(`${running.url}${path}`, {
        method: init.method ?? (body === undefined ? 'GET' : 'POST'),
        headers,
        ...(body === undefined ? {} : { body }),
      });
    },
    close: () => running.close({ graceMs: 1000 }),
  };
}
