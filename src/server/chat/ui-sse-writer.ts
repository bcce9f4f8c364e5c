import type { ServerResponse } from 'node:http';
import { ToolgateError } from '../../core/errors.ts';
import { parseNonNegativeInt } from '../query.ts';
import { UI_MESSAGE_STREAM_HEADERS, type UiChunk } from './ui-chunks.ts';

/**
 * Where a client resumes a run's UI stream: after event `eventId`, of whose chunks it had `chunks` (all of them when
 * the id was the event's own). One event can make several chunks (a turn's last text and its `text-end`), written
 * at once but possibly cut apart by a network: their SSE ids are `<event id>:<n>` for the n-th and the event id for
 * the last, so a client resuming from any of them gets each chunk once.
 */
export interface ResumePoint {
  eventId: number;
  chunks: number;
}

export const FROM_THE_START: ResumePoint = { eventId: 0, chunks: 0 };

const CHUNK_ID = /^\s*(\d{1,15})(?::(\d{1,6}))?\s*$/;

/** The resume point of a Last-Event-ID header (it wins) or `?after=`; the start of the run when neither is given. */
export function parseResumePoint(header: string | string[] | undefined, after: string | undefined): ResumePoint {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value !== undefined && value.trim() !== '') {
    const match = CHUNK_ID.exec(value);
    if (match === null) {
      throw new ToolgateError(
        'usage',
        `Last-Event-ID must be an id this stream sent (an event id such as 42, or 42:1), got "${value.slice(0, 40)}"`,
      );
    }
    const eventId = Number(match[1]);
    return { eventId, chunks: match[2] === undefined ? Number.POSITIVE_INFINITY : Number(match[2]) };
  }
  if (after === undefined) return FROM_THE_START;
  return { eventId: parseNonNegativeInt('after', after), chunks: Number.POSITIVE_INFINITY };
}

/** One event's chunks as SSE frames, without those the client already had (see ResumePoint). */
export function framesOf(eventId: number, chunks: readonly UiChunk[], from: ResumePoint): string {
  if (eventId < from.eventId) return '';
  let text = '';
  for (const [i, chunk] of chunks.entries()) {
    if (eventId === from.eventId && i < from.chunks) continue;
    const id = i === chunks.length - 1 ? String(eventId) : `${eventId}:${i + 1}`;
    text += `id: ${id}\ndata: ${JSON.stringify(chunk)}\n\n`;
  }
  return text;
}

/** A chunk that belongs to no event (the `start` of a stream): no id, so it never moves a resume point. */
export function frameWithoutId(chunk: UiChunk): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/**
 * Writes one UI message stream: the AI SDK's headers, frames at the pace the client reads (a write waits for 'drain';
 * a client that takes nothing for idleTimeoutMs is dropped), `: ping` comments while the run is quiet, and
 * `data: [DONE]` at the end.
 */
export class UiSseWriter {
  readonly #res: ServerResponse;
  readonly #heartbeatMs: number;
  readonly #idleTimeoutMs: number;
  #heartbeat: NodeJS.Timeout | undefined;
  #waiting = false;

  constructor(options: { res: ServerResponse; heartbeatMs: number; idleTimeoutMs: number }) {
    this.#res = options.res;
    this.#heartbeatMs = options.heartbeatMs;
    this.#idleTimeoutMs = options.idleTimeoutMs;
  }

  get gone(): boolean {
    return this.#res.destroyed || this.#res.writableEnded;
  }

  open(): void {
    this.#res.writeHead(200, UI_MESSAGE_STREAM_HEADERS);
    this.#res.flushHeaders();
    this.#heartbeat = setInterval(() => {
      // A client that is behind is not idle: a ping would only add to what it has not read.
      if (!this.#waiting && !this.gone) this.#res.write(': ping\n\n');
    }, this.#heartbeatMs);
    this.#heartbeat.unref();
  }

  /** Writes frames; resolves once the client can take more (false: it is gone). */
  async write(text: string): Promise<boolean> {
    if (text === '') return !this.gone;
    if (this.gone) return false;
    if (this.#res.write(text)) return true;
    this.#waiting = true;
    try {
      return await this.#drained();
    } finally {
      this.#waiting = false;
    }
  }

  /** The stream is complete: `[DONE]`, then the response ends. */
  end(): void {
    this.#stop();
    if (this.gone) return;
    this.#res.end('data: [DONE]\n\n');
  }

  /** Cut without `[DONE]` (a shutdown): the AI SDK sees a lost connection, and a client that resumes goes on. */
  cut(): void {
    this.#stop();
    this.#res.destroy();
  }

  #stop(): void {
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  #drained(): Promise<boolean> {
    const res = this.#res;
    return new Promise((resolve) => {
      const done = (open: boolean): void => {
        clearTimeout(timer);
        res.off('drain', onDrain);
        res.off('close', onClose);
        resolve(open);
      };
      const onDrain = (): void => done(true);
      const onClose = (): void => done(false);
      // A client that stops reading must not hold the run's events and the socket's buffers forever.
      const timer = setTimeout(() => {
        res.destroy();
        done(false);
      }, this.#idleTimeoutMs);
      timer.unref();
      res.once('drain', onDrain);
      res.once('close', onClose);
    });
  }
}
