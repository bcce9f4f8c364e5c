import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { MessageScanner, type ScanLimits } from './message-scanner.ts';
import { droppedMessage, substituteFor } from './refused-answer.ts';

const NEWLINE = 0x0a;

export interface BoundedReadBufferOptions {
  limits: ScanLimits;
  /** The SDK's own parse of one line (JSON, then its message schema). */
  deserialize: (line: string) => JSONRPCMessage;
  /** A line that was dropped, and why. */
  onError: (error: Error) => void;
}

/**
 * A stand-in for the SDK's stdio ReadBuffer (`append`, `readMessage`,
 * `clear`), which holds a line until its end and, past 10 MB, drops the
 * connection. This one holds at most `keepBytes` of a line: a longer one is
 * read on without being kept and answered in its place (refused-answer.ts),
 * and so is one nested too deep; the lines after it are read as usual, so
 * the other calls on the connection go on.
 */
export class BoundedReadBuffer {
  readonly #options: BoundedReadBufferOptions;
  readonly #scanner: MessageScanner;
  readonly #ready: JSONRPCMessage[] = [];

  constructor(options: BoundedReadBufferOptions) {
    this.#options = options;
    this.#scanner = new MessageScanner(options.limits);
  }

  append(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline < 0) {
        this.#scanner.push(chunk, start, chunk.length);
        return;
      }
      this.#scanner.push(chunk, start, newline);
      this.#endLine();
      start = newline + 1;
    }
  }

  readMessage(): JSONRPCMessage | null {
    return this.#ready.shift() ?? null;
  }

  clear(): void {
    this.#ready.length = 0;
    // What was read of an unfinished line is dropped with it.
    this.#scanner.finish();
  }

  #endLine(): void {
    if (this.#scanner.size === 0) return;
    const verdict = this.#scanner.finish();
    if (verdict.kind === 'refused') {
      const substitute = substituteFor(verdict, this.#options.limits);
      if (substitute === undefined) this.#options.onError(droppedMessage(verdict, this.#options.limits));
      else this.#ready.push(substitute);
      return;
    }
    const line = Buffer.from(verdict.bytes.buffer, verdict.bytes.byteOffset, verdict.bytes.byteLength).toString('utf8');
    try {
      this.#ready.push(this.#options.deserialize(line));
    } catch (error) {
      // As the SDK does: a line that is not JSON is noise (StdioWatch reports it); one that is not a message is an
      // error.
      if (!(error instanceof SyntaxError))
        this.#options.onError(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
