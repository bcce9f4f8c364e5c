import type { ServerContext } from '@modelcontextprotocol/server';
import type { JsonObject } from '../core/index.ts';

/** Longest progress message passed on from an upstream server. */
const MAX_PROGRESS_MESSAGE = 1000;

/** Progress of one client request, passed on from upstream. */
export interface ProgressRelay {
  send: (progress: JsonObject) => void;
  /** Settles once every notification passed on so far has been handed to the transport: the result goes after. */
  flushed: () => Promise<void>;
}

/**
 * Where an upstream server's progress for a request goes: to the client's own
 * request, under the client's `_meta.progressToken` (the upstream saw a token
 * the SDK chose); undefined when the client asked for no progress. Only the
 * spec's fields are passed on, bounded, in order.
 */
export function progressRelay(ctx: ServerContext): ProgressRelay | undefined {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return undefined;
  let sent: Promise<void> = Promise.resolve();
  return {
    send: (progress) => {
      const value = progress['progress'];
      if (typeof value !== 'number' || !Number.isFinite(value)) return;
      const total = progress['total'];
      const message = progress['message'];
      const notification = {
        method: 'notifications/progress' as const,
        params: {
          progressToken: token,
          progress: value,
          ...(typeof total === 'number' && Number.isFinite(total) ? { total } : {}),
          ...(typeof message === 'string' ? { message: message.slice(0, MAX_PROGRESS_MESSAGE) } : {}),
        },
      };
      sent = sent.then(() => ctx.mcpReq.notify(notification).catch(() => undefined));
    },
    flushed: () => sent,
  };
}

/** `work` with the relay's progress passed on, its result returned only after the last progress notification. */
export async function withProgress<T>(
  relay: ProgressRelay | undefined,
  work: (onProgress: ((progress: JsonObject) => void) | undefined) => Promise<T>,
): Promise<T> {
  try {
    return await work(relay?.send);
  } finally {
    await relay?.flushed();
  }
}
