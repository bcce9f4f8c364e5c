import { concatBytes } from './concat-bytes.ts';

/**
 * Reads a request body within a size limit. A body over the limit is still
 * read (and thrown away) up to `discardBytes` more, so that a client still
 * sending it gets to read the 413: answered while it writes, it would see the
 * connection reset instead. Only a body larger still is cut off.
 */

/** What readLimited needs of a body: Node's IncomingMessage is one. */
export interface ByteSource {
  headers: Record<string, string | string[] | undefined>;
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  once(event: 'end', listener: () => void): unknown;
  once(event: 'error', listener: (error: Error) => void): unknown;
  pause(): unknown;
  resume(): unknown;
}

export interface ReadLimitedOptions {
  maxBytes: number;
  /** Bytes past maxBytes read and dropped before giving up on the body (and the connection). */
  discardBytes: number;
}

/**
 * `ok`: the whole body. `too_large`: over maxBytes; `drained` says whether it
 * was read to its end (the connection can serve the next request) or cut off
 * (answer with `Connection: close`).
 */
export type ReadLimited = { kind: 'ok'; bytes: Uint8Array } | { kind: 'too_large'; drained: boolean };

export function readLimited(source: ByteSource, options: ReadLimitedOptions): Promise<ReadLimited> {
  const { maxBytes, discardBytes } = options;
  const declared = Number(source.headers['content-length'] ?? Number.NaN);
  // Announced larger than what would be read at all: answered without reading.
  if (declared > maxBytes + discardBytes) {
    source.pause();
    return Promise.resolve({ kind: 'too_large', drained: false });
  }
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: ReadLimited): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    source.on('data', (chunk) => {
      if (settled) return;
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else chunks.length = 0;
      if (size > maxBytes + discardBytes) {
        source.pause();
        settle({ kind: 'too_large', drained: false });
      }
    });
    source.once('end', () =>
      settle(size > maxBytes ? { kind: 'too_large', drained: true } : { kind: 'ok', bytes: concatBytes(chunks) }),
    );
    source.once('error', (error) => {
      if (settled) return;
      settled = true;
      reject(error);
    });
    source.resume();
  });
}
