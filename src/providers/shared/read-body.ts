/**
 * Chunks of a response body. Ends as soon as `signal` aborts, even under a
 * fetch that stopped watching the signal once the headers arrived, and cancels
 * the body whenever the consumer stops early (an error, a limit, an abort), so
 * the connection is released rather than left to fill.
 */
export async function* bodyChunks(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  // Cancelling settles a pending read, which the loop then turns into the abort.
  const onAbort = (): void => void reader.cancel(signal?.reason).catch(() => undefined);
  signal?.addEventListener('abort', onAbort, { once: true });
  let finished = false;
  try {
    while (true) {
      signal?.throwIfAborted();
      const chunk = await reader.read();
      signal?.throwIfAborted();
      if (chunk.done) {
        finished = true;
        return;
      }
      yield chunk.value;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

export interface ReadTextOptions {
  maxBytes: number;
  signal?: AbortSignal;
  /** Called when the body is larger than maxBytes; its error is thrown. Without it the text is cut at maxBytes. */
  tooLarge?: (declared: number | undefined) => Error;
}

/** A whole body as UTF-8 text, never holding more than maxBytes + one network chunk. */
export async function readText(response: Response, options: ReadTextOptions): Promise<string> {
  const { maxBytes, signal, tooLarge } = options;
  if (response.body === null) return '';
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (tooLarge !== undefined && Number.isFinite(declared) && declared > maxBytes) {
    await response.body.cancel().catch(() => undefined);
    throw tooLarge(declared);
  }
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of bodyChunks(response.body, signal)) {
    if (total + chunk.byteLength > maxBytes) {
      if (tooLarge !== undefined) throw tooLarge(undefined);
      parts.push(chunk.subarray(0, maxBytes - total));
      total = maxBytes;
      break;
    }
    parts.push(chunk);
    total += chunk.byteLength;
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return new TextDecoder('utf-8').decode(bytes);
}

/**
 * `fetch`'s answer, or the signal's reason once it aborts — so timeoutMs holds
 * even under an injected fetch that ignores its signal. A response that still
 * arrives afterwards gets its body cancelled.
 */
export function untilAborted(pending: Promise<Response>, signal: AbortSignal): Promise<Response> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason as Error);
      pending.then((late) => late.body?.cancel(), () => undefined).catch(() => undefined);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (response) => {
        signal.removeEventListener('abort', onAbort);
        resolve(response);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}
