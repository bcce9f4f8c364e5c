import type { ModelChoices, Run, RunEvent, StatsSnapshot, ToolsView } from '../core/index.ts';
import type { RunsPage, SessionInfo, SignedIn } from './types.ts';

/*
 * The runs API's answers as the client reads them. The fields a caller branches on are checked, so that an answer
 * from something else (a proxy's page, another server at that URL) is refused by name instead of read as a run; the
 * rest is taken as documented (docs/server.md). Event types are not checked against a list: a newer server may send
 * types this client does not know.
 */

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A run as GET /v1/runs/{id}, POST /v1/runs, …/input and …/cancel answer with it. */
export function isRun(value: unknown): value is Run {
  return (
    isObject(value) &&
    typeof value['id'] === 'string' &&
    typeof value['status'] === 'string' &&
    typeof value['lastEventId'] === 'number'
  );
}

/** A stored event, as the events endpoint and its SSE stream send it. */
export function isRunEvent(value: unknown): value is RunEvent {
  return (
    isObject(value) && Number.isSafeInteger(value['id']) && typeof value['type'] === 'string' && isObject(value['data'])
  );
}

export function isRunsPage(value: unknown): value is RunsPage {
  if (!isObject(value) || !Array.isArray(value['runs'])) return false;
  const cursor = value['nextCursor'];
  return (
    (cursor === undefined || typeof cursor === 'string') &&
    value['runs'].every((run) => isObject(run) && typeof run['id'] === 'string')
  );
}

export function isEventList(value: unknown): value is { events: RunEvent[] } {
  return isObject(value) && Array.isArray(value['events']) && value['events'].every(isRunEvent);
}

export function isToolsView(value: unknown): value is ToolsView {
  return (
    isObject(value) &&
    Array.isArray(value['tools']) &&
    Array.isArray(value['servers']) &&
    value['tools'].every((tool) => isObject(tool) && typeof tool['name'] === 'string')
  );
}

export function isModelChoices(value: unknown): value is ModelChoices {
  return (
    isObject(value) &&
    Array.isArray(value['models']) &&
    value['models'].every((model) => typeof model === 'string') &&
    (value['default'] === undefined || typeof value['default'] === 'string')
  );
}

export function isSessionInfo(value: unknown): value is SessionInfo {
  return isObject(value) && typeof value['authenticated'] === 'boolean' && typeof value['keysRequired'] === 'boolean';
}

export function isSignedIn(value: unknown): value is SignedIn {
  return isObject(value) && typeof value['csrfToken'] === 'string';
}

/** GET /v1/stats's answer: the window, its rows and totals. */
export function isStatsSnapshot(value: unknown): value is StatsSnapshot {
  return (
    isObject(value) &&
    typeof value['windowMs'] === 'number' &&
    typeof value['since'] === 'string' &&
    Array.isArray(value['rows']) &&
    isObject(value['totals']) &&
    Array.isArray(value['rollouts'])
  );
}
