import { RUN_EVENT_TYPES, RUN_STATUSES, isJsonObject, type Run, type RunEvent } from '../core/index.ts';
import { isOneOf } from '../core/is-one-of.ts';

/*
 * The runs API's answers as the CLI reads them. The server is toolgate's own
 * (docs/server.md): the fields the CLI branches on are checked, so that an
 * answer from something else is refused by name; the rest is taken as documented.
 */

/** A run as GET /v1/runs/{id}, POST …/input and …/cancel answer with it. */
export function isRunAnswer(value: unknown): value is Run {
  return (
    isJsonObject(value) &&
    typeof value['id'] === 'string' &&
    isOneOf(RUN_STATUSES, value['status']) &&
    typeof value['lastEventId'] === 'number'
  );
}

/** A stored event, as the events endpoint and its SSE stream send it. */
export function isRunEventAnswer(value: unknown): value is RunEvent {
  return (
    isJsonObject(value) &&
    typeof value['id'] === 'number' &&
    isOneOf(RUN_EVENT_TYPES, value['type']) &&
    isJsonObject(value['data'])
  );
}
