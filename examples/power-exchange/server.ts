// Entry point: node examples/power-exchange/server.ts [options] (see USAGE).
// In stdio mode stdout carries only MCP messages; everything else goes to stderr.
import { createServer } from 'node:http';
import type { Server as HttpServer } from 'node:http';
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { USAGE, parseServerArgs } from './cli-options.ts';
import type { ServerOptions } from './cli-options.ts';
import { Exchange } from './domain/exchange.ts';
import { seedDemo } from './domain/seed.ts';
import { toNodeListener } from './http.ts';
import { IdempotencyStore } from './idempotency.ts';
import { ServerStats } from './server-stats.ts';
import { STATE_FILE_VERSION, loadStateFile, saveStateFile } from './state-file.ts';
import type { ToolRuntime } from './tool-runner.ts';
import { TOOL_NAMES, createPowerExchangeServer } from './tools.ts';

const EXIT_USAGE = 2;
/** How long a graceful shutdown may take before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 2000;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

function log(message: string): void {
  process.stderr.write(`power-exchange: ${message}\n`);
}

function die(message: string): never {
  log(message);
  process.exit(EXIT_USAGE);
}

function exit({ code, reason }: { code: number; reason: string }): never {
  log(`${reason}: exiting with code ${code}`);
  process.exit(code);
}

function createRuntime(options: ServerOptions): ToolRuntime {
  const now = () => new Date();
  const loaded = options.statePath === undefined ? undefined : loadStateFile(options.statePath);
  if (loaded !== undefined && !loaded.ok) die(loaded.message);
  const state = loaded?.state;
  let exchange: Exchange;
  if (state === undefined) {
    exchange = new Exchange({
      now,
      ...(options.initialCashEUR === undefined ? {} : { initialCashEUR: options.initialCashEUR }),
    });
    seedDemo(exchange);
  } else {
    try {
      exchange = Exchange.restore(state.exchange, { now });
    } catch (error) {
      die(
        `state file ${options.statePath} is inconsistent: ${(error as Error).message}; fix or delete it to start fresh`,
      );
    }
  }
  const idempotency = new IdempotencyStore({ records: state?.idempotency ?? [] });
  const { statePath } = options;
  const persist =
    statePath === undefined
      ? () => undefined
      : () =>
          saveStateFile(statePath, {
            version: STATE_FILE_VERSION,
            savedAt: now().toISOString(),
            exchange: exchange.snapshot(),
            idempotency: idempotency.snapshot(),
          });
  return { exchange, stats: new ServerStats(), idempotency, faults: options.faults, persist, exit, now };
}

/** Browsers must not reach a loopback server from another origin (DNS rebinding). */
function guardLoopback(host: string, fetch: (request: Request) => Promise<Response>) {
  if (!LOOPBACK_HOSTS.has(host)) return fetch;
  return async (request: Request): Promise<Response> =>
    hostHeaderValidationResponse(request, localhostAllowedHostnames()) ??
    originValidationResponse(request, localhostAllowedOrigins()) ??
    fetch(request);
}

function listen(server: HttpServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

async function main(): Promise<void> {
  const parsed = parseServerArgs({ argv: process.argv.slice(2), tools: TOOL_NAMES });
  if (!parsed.ok) die(`${parsed.message}\n\n${USAGE}`);
  const { options } = parsed;
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const runtime = createRuntime(options);
  try {
    // Saving once at start creates the file and surfaces an unwritable path now, not on the first trade.
    runtime.persist();
  } catch (error) {
    die(`cannot write state file ${options.statePath}: ${(error as Error).message}`);
  }
  const factory = () => createPowerExchangeServer(runtime);
  const onerror = (error: Error) => log(error.message);
  const closers: (() => Promise<void>)[] = [];

  let stopping = false;
  const shutdown = (reason: string) => {
    if (stopping) return;
    stopping = true;
    log(`shutting down (${reason})`);
    setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS).unref();
    void Promise.allSettled(closers.map((close) => close())).then(() => process.exit(0));
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));

  if (options.transport.kind === 'stdio') {
    const handle = serveStdio(factory, { onerror });
    closers.push(() => handle.close());
    process.stdin.once('end', () => shutdown('stdin closed'));
    process.stdin.once('close', () => shutdown('stdin closed'));
    log('serving MCP on stdio');
    return;
  }

  const { host, port } = options.transport;
  const handler = createMcpHandler(factory, { onerror });
  const server = createServer(toNodeListener({ handler: guardLoopback(host, handler.fetch), onError: onerror }));
  closers.push(
    () => handler.close(),
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  let bound: number;
  try {
    bound = await listen(server, port, host);
  } catch (error) {
    die(`cannot listen on ${host}:${port}: ${(error as Error).message}`);
  }
  const line = `listening on http://${host.includes(':') ? `[${host}]` : host}:${bound}/mcp`;
  // The exact line on both streams: scripts read the port from stdout, people from the log.
  process.stderr.write(`${line}\n`);
  process.stdout.write(`${line}\n`);
}

await main();
