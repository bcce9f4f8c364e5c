import type { ErrorInfo } from './errors.ts';
import type { ApprovalReason, Provenance } from './events.ts';
import type { JsonObject } from './json.ts';
import type { Message } from './messages.ts';
import type { Usage } from './usage.ts';

/** Run lifecycle: queued → running → (waiting_approval ⇄ running) → completed | failed | cancelled. */
export const RUN_STATUSES = ['queued', 'running', 'waiting_approval', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const TERMINAL_RUN_STATUSES: ReadonlySet<RunStatus> = new Set<RunStatus>(['completed', 'failed', 'cancelled']);

/** A run's current state: a projection of its event log, kept by the store. */
export interface Run {
  id: string;
  status: RunStatus;
  input: string;
  model: string;
  createdAt: string;
  updatedAt: string;
  tenantId?: string;
  userId?: string;
  threadId?: string;
  output?: string;
  error?: ErrorInfo;
  usage: Usage;
  steps: number;
  /** Sequence number of the last event appended (0 before the first). */
  lastEventId: number;
  metadata?: JsonObject;
  /** Server-side values for injected arguments (`{{context.*}}`), never shown to the model. */
  context?: JsonObject;
  dryRun?: boolean;
  /**
   * How the run is driven, fixed when it is created and read back from the
   * store every time it is driven (after an approval, a restart, or by another
   * process). Absent only on runs stored before settings were kept.
   */
  settings?: RunSettings;
  /** The call waiting for a decision, while status is `waiting_approval`. */
  pendingApproval?: PendingApproval;
}

/** The names of the strategies a run may use (`react` is the default). */
export const STRATEGY_NAMES = ['react'] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];
export const DEFAULT_STRATEGY: StrategyName = 'react';

/**
 * Per-run settings: chosen when the run is created (request values over the
 * configuration) and stored with it, so every process that drives the run
 * drives the same run.
 */
export interface RunSettings {
  maxSteps: number;
  strategy: StrategyName;
  /** native | prompted | auto (native, falling back to prompted when the endpoint rejects tools). */
  toolMode: 'native' | 'prompted' | 'auto';
  /** Feedback rounds when the model's tool calls cannot be used, text or native. */
  parseRetries: number;
  /** Native mode: tool calls written in the answer text (never | auto | always). */
  textToolCalls: 'never' | 'auto' | 'always';
  /** Prompted mode: ask the endpoint for structured output in the call format. */
  constrain: boolean;
  /** Stream model output (assistant_delta events). */
  stream: boolean;
}

export interface PendingApproval {
  toolCallId: string;
  name: string;
  arguments: JsonObject;
  effect: 'read' | 'write';
  reason: ApprovalReason;
  detail?: string;
  provenance?: Provenance[];
  /** Id of the approval_required event. */
  eventId: number;
}

/** What a caller supplies to create a run; the store fills in the rest. */
export interface NewRun {
  id?: string;
  input: string;
  model: string;
  status?: RunStatus;
  tenantId?: string;
  userId?: string;
  threadId?: string;
  metadata?: JsonObject;
  context?: JsonObject;
  dryRun?: boolean;
  settings?: RunSettings;
}

/** Fields the loop may change together with an append. */
export type RunPatch = Partial<Pick<Run, 'status' | 'output' | 'error' | 'usage' | 'steps'>> & {
  /** Set while waiting for a decision; `null` clears it. */
  pendingApproval?: PendingApproval | null;
};

/** A conversation reused across runs by `threadId`: the messages so far. */
export interface Thread {
  id: string;
  tenantId?: string;
  messages: Message[];
  createdAt: string;
  updatedAt: string;
}

/** A short random id with a readable prefix (`run_…`, `call_…`). */
export function newId(prefix: string): string {
  return `${prefix}_${globalThis.crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`;
}
