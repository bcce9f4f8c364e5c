// What the console shows of a run, folded from its events in order. Pure: the
// same events always give the same view, so a reconnect that replays nothing
// twice and skips nothing shows exactly what a fresh load shows.
import type { GateDecisionKind, PlanStep, RunEvent, TodoItem } from '../../src/core/events.ts';
import type { JsonObject, JsonValue } from '../../src/core/json.ts';
import { notifiedNote, sourceNote, timedOutNote } from '../../src/client/approval-notes.ts';
import { replayView, type ForkOrigin, type ReplayView } from './replay-model.ts';

export type CallState =
  | 'proposed'
  | 'waiting'
  | 'running'
  | 'done'
  | 'failed'
  | 'denied'
  | 'invalid'
  | 'skipped'
  | 'dry_run'
  /** A client tool's call (the caller runs it): validated, normalised, handed back; toolgate never ran it. */
  | 'handed_back';

export interface CallCard {
  id: string;
  step: number;
  name: string;
  /** As the model wrote them (before the gate). */
  proposed?: JsonObject | string;
  /** What ran: normalised, injected values in place (redacted where secret). */
  arguments?: JsonObject;
  effect?: 'read' | 'write';
  decision?: GateDecisionKind;
  reason?: string;
  policyRule?: string;
  normalisations: { path: string; from: JsonValue; to?: JsonValue; rule: string }[];
  injected: { key: string; overridden: boolean }[];
  issues: { code: string; path: string; message: string }[];
  approval?: {
    reason: string;
    detail?: string;
    decision?: string;
    by?: string;
    note?: string;
    /** Where the decision came from, when not the runs API: "via link (desk)". */
    via?: string;
    /** Notifications and timeouts of the wait, in order: "notified desk (delivered)", "timed out after 10 min → …". */
    notices?: string[];
  };
  result?: {
    ok: boolean;
    text: string;
    error?: { code: string; message: string };
    latencyMs: number;
    dryRun?: boolean;
    markedDone?: boolean;
    untrusted?: boolean;
  };
  state: CallState;
  startedAt?: string;
  endedAt?: string;
}

export interface Span {
  kind: 'model' | 'tool';
  label: string;
  start: number;
  end: number;
  ok: boolean;
}

export interface PlanView {
  planId: string;
  revision: number;
  reason?: string;
  approval: string;
  steps: (PlanStep & { state: CallState | 'pending' | 'reasoning' })[];
  finalAnswer?: string;
}

export interface RunView {
  status: string;
  input?: string;
  model?: string;
  strategy?: string;
  dryRun?: boolean;
  /** Text of each model turn, as it streams (assistant_delta) and as it ended. */
  turns: { step: number; text: string; reasoning?: string; done: boolean; purpose?: string }[];
  calls: Map<string, CallCard>;
  order: string[];
  plan?: PlanView;
  todos: TodoItem[];
  reflections: RunEvent<'reflection'>['data'][];
  guardTrips: RunEvent<'guard_tripped'>['data'][];
  /** Gateway sessions: upstream tools hidden because their definition changed since they were pinned. */
  toolChanges: RunEvent<'tool_changed'>['data'][];
  /** Gateway mode: requests upstream servers sent the session's client, and what became of them. */
  upstreamRequests: RunEvent<'upstream_request'>['data'][];
  /** The run's tool mode changed (a model that writes its calls as text, an endpoint that refused tools). */
  modeChanges: RunEvent<'tool_mode_changed'>['data'][];
  routed?: RunEvent<'intent_routed'>['data'];
  retries: RunEvent<'parse_retry'>['data'][];
  messages: string[];
  pending?: RunEvent<'approval_required'>['data'];
  output?: string;
  error?: { code: string; message: string };
  cancelled?: string;
  spans: Span[];
  /** A fork: the run and event it was forked after (run_forked). */
  forkOf?: ForkOrigin;
  /** A stored replay: its decision diff against the run it replays (replay_compared). */
  replay?: ReplayView;
  lastId: number;
  finished: boolean;
}

export function emptyView(): RunView {
  return {
    status: 'queued',
    turns: [],
    calls: new Map(),
    order: [],
    todos: [],
    reflections: [],
    guardTrips: [],
    toolChanges: [],
    upstreamRequests: [],
    modeChanges: [],
    retries: [],
    messages: [],
    spans: [],
    lastId: 0,
    finished: false,
  };
}

function toolText(content: RunEvent<'tool_result'>['data']['content']): string {
  return content
    .map((part) => ('text' in part && typeof part.text === 'string' ? part.text : JSON.stringify(part)))
    .join('\n');
}

function card(view: RunView, id: string, step: number, name: string): CallCard {
  let found = view.calls.get(id);
  if (found === undefined) {
    found = { id, step, name, normalisations: [], injected: [], issues: [], state: 'proposed' };
    view.calls.set(id, found);
    view.order.push(id);
  }
  return found;
}

function turn(view: RunView, step: number): RunView['turns'][number] {
  let found = view.turns.find((t) => t.step === step);
  if (found === undefined) {
    found = { step, text: '', done: false };
    view.turns.push(found);
  }
  return found;
}

function planState(view: RunView): void {
  if (view.plan === undefined) return;
  for (const step of view.plan.steps) {
    if (step.kind === 'reasoning') step.state = 'reasoning';
    else if (step.toolCallId !== undefined) step.state = view.calls.get(step.toolCallId)?.state ?? 'pending';
  }
}

/** Folds one event into the view. Events must come in id order, each once: the caller checks. */
export function applyEvent(view: RunView, event: RunEvent): void {
  view.lastId = event.id;
  const at = Date.parse(event.time);
  switch (event.type) {
    case 'run_started':
      view.input = event.data.input;
      view.model = event.data.model;
      if (event.data.strategy !== undefined) view.strategy = event.data.strategy;
      if (event.data.dryRun !== undefined) view.dryRun = event.data.dryRun;
      break;
    case 'run_status':
      view.status = event.data.to;
      if (event.data.from === 'waiting_approval' || event.data.from === 'escalated') delete view.pending;
      break;
    case 'user_message':
      view.messages.push(event.data.text);
      break;
    case 'assistant_delta':
      turn(view, event.data.step).text += event.data.text;
      break;
    case 'assistant_message': {
      const t = turn(view, event.data.step);
      t.text = event.data.content ?? event.data.text;
      t.done = true;
      if (event.data.reasoning !== undefined) t.reasoning = event.data.reasoning;
      if (event.data.purpose !== undefined) t.purpose = event.data.purpose;
      for (const call of event.data.calls ?? []) {
        const c = card(view, call.id, event.data.step, call.name);
        c.proposed = call.arguments as JsonObject | string;
      }
      view.spans.push({
        kind: 'model',
        label: `model · step ${event.data.step}${event.data.purpose === undefined ? '' : ` (${event.data.purpose})`}`,
        start: at - event.data.latencyMs,
        end: at,
        ok: true,
      });
      break;
    }
    case 'parse_retry':
      view.retries.push(event.data);
      break;
    case 'gate_decision': {
      const c = card(view, event.data.toolCallId, event.data.step, event.data.name);
      c.effect = event.data.effect;
      c.decision = event.data.decision;
      c.normalisations = event.data.normalisations;
      c.injected = event.data.injected;
      c.issues = event.data.issues ?? [];
      if (event.data.reason !== undefined) c.reason = event.data.reason;
      if (event.data.policyRule !== undefined) c.policyRule = event.data.policyRule;
      if (event.data.decision === 'denied') c.state = 'denied';
      else if (event.data.decision === 'invalid') c.state = 'invalid';
      else if (event.data.decision === 'approval_required') c.state = 'waiting';
      break;
    }
    case 'approval_required': {
      view.pending = event.data;
      if (event.data.kind !== 'plan') {
        const c = card(view, event.data.toolCallId, event.data.step, event.data.name);
        c.arguments = event.data.arguments;
        c.state = 'waiting';
        c.approval = {
          reason: event.data.reason,
          ...(event.data.detail === undefined ? {} : { detail: event.data.detail }),
        };
      }
      break;
    }
    case 'input_received': {
      const input = event.data.input;
      if (input.type === 'message') {
        view.messages.push(input.text);
        break;
      }
      const c = view.calls.get(input.toolCallId);
      if (c !== undefined) {
        c.approval = {
          ...(c.approval ?? { reason: 'policy' }),
          decision: input.decision,
          ...(input.userId === undefined ? {} : { by: input.userId }),
          ...(input.userId === undefined && input.source?.actor !== undefined ? { by: input.source.actor } : {}),
          ...(input.reason === undefined ? {} : { note: input.reason }),
          ...(sourceNote(input.source) === '' ? {} : { via: sourceNote(input.source) }),
        };
        if (input.decision === 'reject') c.state = 'denied';
        if (input.decision === 'edit' && input.arguments !== undefined) c.arguments = input.arguments;
      }
      if (view.pending?.toolCallId === input.toolCallId) delete view.pending;
      break;
    }
    case 'approval_notified':
      notice(view, event.data.toolCallId, notifiedNote(event.data));
      break;
    case 'approval_timed_out':
      notice(view, event.data.toolCallId, timedOutNote(event.data));
      break;
    case 'tool_call': {
      const c = card(view, event.data.toolCallId, event.data.step, event.data.name);
      c.arguments = event.data.arguments;
      c.state = 'running';
      c.startedAt = event.time;
      break;
    }
    case 'client_tool_calls':
      for (const handed of event.data.calls) {
        const c = card(view, handed.toolCallId, event.data.step, handed.name);
        c.arguments = handed.arguments;
        c.state = 'handed_back';
        c.endedAt = event.time;
      }
      break;
    case 'tool_result': {
      const c = card(view, event.data.toolCallId, event.data.step, event.data.name);
      const d = event.data;
      c.result = {
        ok: d.ok,
        text: toolText(d.content),
        latencyMs: d.latencyMs,
        ...(d.error === undefined ? {} : { error: d.error }),
        ...(d.dryRun === true ? { dryRun: true } : {}),
        ...(d.markedDone === true ? { markedDone: true } : {}),
        ...(d.untrusted === true ? { untrusted: true } : {}),
      };
      c.endedAt = event.time;
      if (d.error?.code === 'skipped') c.state = 'skipped';
      else if (d.dryRun === true) c.state = 'dry_run';
      else if (c.state !== 'denied' && c.state !== 'invalid') c.state = d.ok ? 'done' : 'failed';
      view.spans.push({ kind: 'tool', label: d.name, start: at - d.latencyMs, end: at, ok: d.ok });
      break;
    }
    case 'plan_created':
    case 'plan_revised':
      view.plan = {
        planId: event.data.planId,
        revision: event.type === 'plan_revised' ? event.data.revision : 0,
        approval: event.data.approval,
        steps: event.data.steps.map((s) => ({ ...s, state: s.kind === 'reasoning' ? 'reasoning' : 'pending' })),
        ...(event.type === 'plan_revised' ? { reason: event.data.reason } : {}),
        ...(event.data.finalAnswer === undefined ? {} : { finalAnswer: event.data.finalAnswer }),
      };
      break;
    case 'reflection':
      view.reflections.push(event.data);
      break;
    case 'intent_routed':
      view.routed = event.data;
      break;
    case 'guard_tripped':
      view.guardTrips.push(event.data);
      break;
    case 'tool_changed':
      view.toolChanges.push(event.data);
      break;
    case 'upstream_request':
      view.upstreamRequests.push(event.data);
      break;
    case 'tool_mode_changed':
      view.modeChanges.push(event.data);
      break;
    case 'todo_updated':
      view.todos = event.data.todos;
      break;
    case 'run_forked':
      view.forkOf = {
        runId: event.data.from,
        afterEventId: event.data.afterEventId,
        ...(event.data.settings === undefined ? {} : { settings: event.data.settings }),
      };
      break;
    case 'replay_compared':
      view.replay = replayView(event.data.diff);
      break;
    case 'run_completed':
      view.output = event.data.output;
      view.status = 'completed';
      view.finished = true;
      break;
    case 'run_failed':
      view.error = { code: event.data.error.code, message: event.data.error.message };
      view.status = 'failed';
      view.finished = true;
      break;
    case 'run_cancelled':
      view.cancelled = event.data.reason ?? 'cancelled';
      view.status = 'cancelled';
      view.finished = true;
      break;
    default:
      break;
  }
  planState(view);
}

/** A notification or timeout of a waiting call, on its card (a whole plan's wait has none). */
function notice(view: RunView, toolCallId: string, text: string): void {
  const c = view.calls.get(toolCallId);
  if (c === undefined) return;
  c.approval = { ...(c.approval ?? { reason: 'policy' }), notices: [...(c.approval?.notices ?? []), text] };
}
