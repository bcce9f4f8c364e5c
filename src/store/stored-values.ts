import {
  RUN_EVENT_TYPES,
  RUN_STATUSES,
  isErrorCode,
  isJsonObject,
  type ErrorInfo,
  type Message,
  type PendingApproval,
  type RunEvent,
  type RunEventType,
  type RunSettings,
  type RunStatus,
  type Usage,
} from '../core/index.ts';

// Guards for what a store reads back: the values it wrote itself through the
// typed port. Each checks what tells the value apart and what every writer
// has always set, so a corrupted or foreign row fails here with its column
// named, not deep in a run; the remaining fields are the typed writer's, as
// the JSON round trip kept them.

const STATUSES: ReadonlySet<string> = new Set(RUN_STATUSES);
const EVENT_TYPES: ReadonlySet<string> = new Set(RUN_EVENT_TYPES);
const ROLES: ReadonlySet<string> = new Set(['system', 'user', 'assistant', 'tool']);

export function isRunStatus(value: unknown): value is RunStatus {
  return typeof value === 'string' && STATUSES.has(value);
}

export function isRunEventType(value: unknown): value is RunEventType {
  return typeof value === 'string' && EVENT_TYPES.has(value);
}

const USAGE_COUNTS = ['promptTokens', 'completionTokens', 'totalTokens'] as const;

/** Counts that are numbers: a row written by hand with `{}` (a first-schema test, an operator's repair) still reads. */
export function isUsage(value: unknown): value is Usage {
  return (
    isJsonObject(value) && USAGE_COUNTS.every((count) => value[count] === undefined || typeof value[count] === 'number')
  );
}

export function isErrorInfo(value: unknown): value is ErrorInfo {
  return isJsonObject(value) && isErrorCode(value['code']) && typeof value['message'] === 'string';
}

/** A model-driven run's settings, or a gateway session's (which carry only `gateway` and a trace). */
export function isRunSettings(value: unknown): value is RunSettings {
  return isJsonObject(value) && (typeof value['maxSteps'] === 'number' || isJsonObject(value['gateway']));
}

export function isPendingApproval(value: unknown): value is PendingApproval {
  return (
    isJsonObject(value) &&
    typeof value['toolCallId'] === 'string' &&
    typeof value['name'] === 'string' &&
    isJsonObject(value['arguments']) &&
    typeof value['eventId'] === 'number'
  );
}

export function isMessage(value: unknown): value is Message {
  return (
    isJsonObject(value) &&
    typeof value['role'] === 'string' &&
    ROLES.has(value['role']) &&
    typeof value['content'] === 'string'
  );
}

export function isMessageList(value: unknown): value is Message[] {
  return Array.isArray(value) && value.every(isMessage);
}

/** An event's fields as a store keeps them, before its type and data are checked. */
export interface EventFields {
  id: number;
  runId: string;
  type: string;
  time: string;
  data: unknown;
}

/** Every event's data is an object; its type is one of the vocabulary's. */
export function isRunEvent(event: EventFields): event is RunEvent {
  return EVENT_TYPES.has(event.type) && isJsonObject(event.data);
}
