import { listen } from './listen.ts';
import type { LogEntry, MetricsSource } from './server-context.ts';

const DEFAULT_METRICS_HOST = '127.0.0.1';

/**
 * GET /metrics alone, on a port of its own (`server.metricsPort`): for a
 * scraper on an internal network, without an API key. Anything else is 404.
 */
export async function startMetricsServer(options: {
  metrics: MetricsSource;
  host?: string;
  port: number;
  log?: (entry: LogEntry) => void;
}): Promise<{ url: string; close(): Promise<void> }> {
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('only GET /metrics is served on this port\n');
      return;
    }
    options.metrics().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      (error: unknown) => {
        options.log?.({ level: 'error', msg: 'metrics could not be collected', error: String(error) });
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics could not be collected\n');
      },
    );
  });
  const url = await listen(server, { host: options.host ?? DEFAULT_METRICS_HOST, port: options.port });
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
