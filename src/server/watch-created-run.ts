import type { ServerResponse } from 'node:http';
import { isJsonObject } from '../core/json.ts';

/**
 * The run a handler answers with as its Location (`/v1/runs/<id>`), for the
 * request's log line. Handlers pass their headers to writeHead, and Node does
 * not let getHeader read those back, so writeHead is watched (what is sent is unchanged).
 */
export function watchCreatedRun(res: ServerResponse): () => string | undefined {
  let location: string | undefined;
  const writeHead = res.writeHead;
  const watched = (...args: unknown[]): ServerResponse => {
    for (const arg of args.slice(1)) {
      if (!isJsonObject(arg)) continue;
      const value = arg['Location'] ?? arg['location'];
      if (typeof value === 'string') location = value;
    }
    // writeHead is overloaded: its arguments are passed on as they came.
    return Reflect.apply(writeHead, res, args);
  };
  Object.assign(res, { writeHead: watched });
  return () => {
    // The chat routes name their run in a header of their own (set with setHeader).
    const named = res.getHeader('x-toolgate-run-id');
    if (typeof named === 'string') return named;
    const set = res.getHeader('location');
    return runIdFrom(location ?? (typeof set === 'string' ? set : undefined));
  };
}

/** `/v1/runs/<id>` → `<id>`. */
function runIdFrom(location: string | undefined): string | undefined {
  return location === undefined ? undefined : /^\/v1\/runs\/([^/?#]+)$/.exec(location)?.[1];
}
