import { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { isJsonObject } from '../../core/json.ts';

const STDERR_TAIL_LINES = 40;
/** Stdout text without a newline is buffered up to this size, then no longer inspected. */
const STDOUT_SCAN_CHARS = 64 * 1024;
const STDOUT_SAMPLE_CHARS = 100;

export interface ProcessExit {
  code: number | null;
  signal: string | null;
}

/**
 * What a stdio MCP server showed of itself: the tail of its stderr, the first
 * stdout line that is not JSON-RPC, how it exited. The SDK silently skips
 * stdout lines that are not JSON and does not pass on the exit code, so the
 * last two come from the child process itself; if the SDK stops exposing it,
 * they are simply missing from messages.
 */
export class StdioWatch {
  /** The last lines of stderr. */
  readonly stderr: string[] = [];
  #noise: string | undefined;
  #child: ChildProcess | undefined;
  #stdout: Readable | undefined;
  #stdoutPartial = '';
  readonly #stderrEnded: Promise<void>;

  constructor(transport: StdioClientTransport, onLine?: (line: string) => void) {
    const stderr = transport.stderr;
    this.#stderrEnded =
      stderr === null
        ? Promise.resolve()
        : new Promise((resolve) => stderr.once('end', () => resolve()).once('close', () => resolve()));
    let partial = '';
    const add = (line: string): void => {
      this.stderr.push(line);
      if (this.stderr.length > STDERR_TAIL_LINES) this.stderr.shift();
      onLine?.(line);
    };
    stderr?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      lines.forEach(add);
    });
    // A last line without a newline is still what the server said last.
    stderr?.once('end', () => {
      if (partial !== '') add(partial);
      partial = '';
    });
    const start = transport.start.bind(transport);
    transport.start = async () => {
      await start();
      // The SDK keeps the child in a private field: read, never relied on (see the class comment).
      this.#watch(Reflect.get(transport, '_process'));
    };
  }

  /** How the process ended, once it has. */
  get exit(): ProcessExit | undefined {
    const child = this.#child;
    if (child === undefined || (child.exitCode === null && child.signalCode === null)) return undefined;
    return { code: child.exitCode, signal: child.signalCode };
  }

  /** The start of the first thing on stdout that is not a JSON-RPC message (text without a newline counts too). */
  get stdoutNoise(): string | undefined {
    const rest = this.#stdoutPartial.trim();
    return this.#noise ?? (rest === '' || /^[[{]/.test(rest) ? undefined : rest.slice(0, STDOUT_SAMPLE_CHARS));
  }

  /** Waits, at most `ms`, for the rest of a dying server's stderr. */
  async settle(ms: number): Promise<void> {
    await Promise.race([this.#stderrEnded, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
  }

  /** The handshake is done: stdout now carries only the SDK's messages and needs no second reader. */
  connected(): void {
    this.#stdout?.off('data', this.#onStdout);
    this.#stdout = undefined;
    this.#stdoutPartial = '';
  }

  #watch(child: unknown): void {
    if (!(child instanceof ChildProcess)) return;
    this.#child = child;
    if (child.stdout === null) return;
    this.#stdout = child.stdout;
    child.stdout.on('data', this.#onStdout);
  }

  readonly #onStdout = (chunk: Buffer): void => {
    const lines = (this.#stdoutPartial + chunk.toString('utf8')).split('\n');
    const rest = lines.pop() ?? '';
    this.#noise = lines
      .find((line) => line.trim() !== '' && !isJsonRpc(line))
      ?.trim()
      .slice(0, STDOUT_SAMPLE_CHARS);
    if (this.#noise === undefined && rest.length > STDOUT_SCAN_CHARS && !/^\s*[[{]/.test(rest))
      this.#noise = rest.trim().slice(0, STDOUT_SAMPLE_CHARS);
    // Found, or a message too long to buffer a second time: the SDK's own reader has it.
    if (this.#noise !== undefined || rest.length > STDOUT_SCAN_CHARS) this.connected();
    else this.#stdoutPartial = rest;
  };
}

function isJsonRpc(line: string): boolean {
  try {
    const message: unknown = JSON.parse(line);
    const first: unknown = Array.isArray(message) ? message[0] : message;
    return isJsonObject(first) && first['jsonrpc'] === '2.0';
  } catch {
    return false;
  }
}
