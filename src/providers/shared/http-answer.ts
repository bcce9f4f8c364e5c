/**
 * An HTTP answer as the model calls read it, whoever fetched it: undici's
 * dispatcher (post-with-undici.ts) or a `fetch`, whose `Response` has this
 * shape, so the body readers take either.
 */

export interface AnswerHeaders {
  /** The header's value, several joined by ", "; null when absent. Names are case-insensitive. */
  get(name: string): string | null;
}

export type ChunkRead = { done: false; value: Uint8Array } | { done: true; value?: Uint8Array | undefined };

/** What a ReadableStream's default reader offers, and all the body readers use. */
export interface ChunkReader {
  read(): Promise<ChunkRead>;
  /** Stops the body: a pending read ends as if the body had ended. */
  cancel(reason?: unknown): Promise<void>;
  releaseLock(): void;
}

export interface AnswerBody {
  getReader(): ChunkReader;
  cancel(reason?: unknown): Promise<void>;
}

/** An HTTP answer as the model calls read it; a fetch `Response` is one. */
export interface HttpAnswer {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: AnswerHeaders;
  readonly body: AnswerBody | null;
}

export interface PostRequest {
  headers: Record<string, string>;
  body: string;
  /** Aborts the request, and the answer's body once it is being read. */
  signal: AbortSignal;
}

/**
 * Sends one POST and resolves with the answer once its headers have arrived.
 * Rejects with the signal's reason once it aborts, and with a `ConnectionFailure`
 * (or fetch's TypeError) when no answer could be had.
 */
export type HttpPost = (url: string, request: PostRequest) => Promise<HttpAnswer>;
