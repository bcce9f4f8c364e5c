// Helpers for tests that start real server processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const EVERYTHING_SERVER = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);
/**
 * The power-exchange example (examples/power-exchange/server.ts), started through a wrapper that turns Node's compile
 * cache on.
 */
export const POWER_EXCHANGE_SERVER = fileURLToPath(new URL('./power-exchange.js', import.meta.url));
export const TOOLGATE_BIN = fileURLToPath(new URL('../../bin/toolgate.js', import.meta.url));
/**
 * `node WITH_COMPILE_CACHE <server.ts> [args…]` starts a TypeScript MCP server of the tests with Node's compile cache
 * on, as POWER_EXCHANGE_SERVER does the example.
 */
export const WITH_COMPILE_CACHE = fileURLToPath(new URL('./with-compile-cache.js', import.meta.url));

/** A port that was free a moment ago (for servers that cannot listen on port 0). */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface StartedProcess {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

/** Spawns a process and waits until its stdout or stderr matches `ready`. */
export async function startProcess(options: {
  command: string;
  args: string[];
  env?: Record<string, string>;
  ready: RegExp;
  timeoutMs?: number;
  cwd?: string;
  /** Called with the child as soon as it is spawned, so a caller can stop it even when it never becomes ready. */
  onSpawn?: (child: ChildProcess) => void;
  /**
   * In a process group of its own (`process.kill(-pid)` then reaches whatever it started, e.g. behind a wrapper like
   * npx).
   */
  detached?: boolean;
}): Promise<StartedProcess & { match: RegExpMatchArray }> {
  const child = spawn(options.command, options.args, {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.detached === true ? { detached: true } : {}),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  options.onSpawn?.(child);
  let out = '';
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`process did not become ready within ${options.timeoutMs ?? 20000} ms; output:\n${out}`)),
      options.timeoutMs ?? 20000,
    );
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const m = out.match(options.ready);
      if (m !== null) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`process exited with ${code} before it was ready; output:\n${out}`));
    });
  });
  return {
    child,
    match,
    output: () => out,
    stop: () => stopProcess(child),
  };
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** The official "everything" MCP server over Streamable HTTP. */
export async function startEverythingHttp(): Promise<StartedProcess & { url: string }> {
  const port = await freePort();
  const started = await startProcess({
    command: process.execPath,
    args: [EVERYTHING_SERVER, 'streamableHttp'],
    env: { PORT: String(port) },
    ready: /listening on port/i,
  });
  return { ...started, url: `http://127.0.0.1:${port}/mcp` };
}

/** Runs the toolgate CLI as a child process and collects its output. */
export function runCli(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runProcess({
    args: [TOOLGATE_BIN, ...args],
    cwd: options.cwd ?? ROOT,
    env: {
      ...process.env,
      NO_COLOR: '1',
      OPENAI_API_KEY: '',
      OPENAI_BASE_URL: '',
      ANTHROPIC_API_KEY: '',
      ANTHROPIC_BASE_URL: '',
      OLLAMA_HOST: '',
      TOOLGATE_MODEL: '',
      ...options.env,
    },
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
}

/** Runs `node <args>` with no stdin and collects its output; killed after `timeoutMs` (default 60 s). */
export async function runProcess(options: {
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, options.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60000);
    child.once('close', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  return { code, stdout, stderr };
}

/** Starts `toolgate serve` as a child process; resolves with its URL once it listens. */
export async function startServe(options: {
  cwd: string;
  args?: string[];
  env?: Record<string, string>;
  /** As startProcess's: the child, before it is ready. */
  onSpawn?: (child: ChildProcess) => void;
}): Promise<StartedProcess & { url: string }> {
  const started = await startProcess({
    command: process.execPath,
    args: [TOOLGATE_BIN, 'serve', '--port', '0', ...(options.args ?? [])],
    env: {
      NO_COLOR: '1',
      OPENAI_API_KEY: '',
      OPENAI_BASE_URL: '',
      ANTHROPIC_API_KEY: '',
      ANTHROPIC_BASE_URL: '',
      OLLAMA_HOST: '',
      TOOLGATE_MODEL: '',
      ...options.env,
    },
    ready: /serving on (http:\/\/\S+)/,
    timeoutMs: 30000,
    cwd: options.cwd,
    ...(options.onSpawn === undefined ? {} : { onSpawn: options.onSpawn }),
  });
  return { ...started, url: started.match[1] ?? '' };
}
