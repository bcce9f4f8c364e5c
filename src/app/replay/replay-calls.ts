import {
  isJsonObject,
  type JsonObject,
  type JsonValue,
  type ReplayCall,
  type ReplayCallOutcome,
  type RunEvent,
  type RunEventDataMap,
} from '../../core/index.ts';

/**
 * A call of a run's log, with where it stands: its step and its place among the step's calls (from 0), and whether its
 * arguments are only the model's (`raw`: a call the gate refused before it normalised anything).
 */
export type PlacedCall = ReplayCall & { position: number; rawArguments?: true };

export interface CallsOfOptions {
  /**
   * What became of a call that reached its tool, by toolCallId (a replay's tool source knows): `recorded_result`,
   * `would_run`, `read_live`. Without it (or for an id it does not know) a call with a tool_call event was `executed`.
   */
  outcomeOf?: (toolCallId: string) => ReplayCallOutcome | undefined;
}

interface Building {
  call: PlacedCall;
  /** The call reached its tool (a tool_call event). */
  reached: boolean;
  /** Arguments from a tool_call event, the surest source. */
  sure: boolean;
}

/**
 * The calls of a run's log, in the order the gate saw them, each from its gate_decision (the first one: what the
 * policy said), tool_call, tool_result and approval events. Arguments are the ones the call ran with (tool_call), else
 * the ones a person was shown (approval_required), else the model's, normalised as the gate recorded it.
 */
export function callsOf(events: readonly RunEvent[], options: CallsOfOptions = {}): PlacedCall[] {
  const raw = rawArguments(events);
  const byId = new Map<string, Building>();
  const order: Building[] = [];
  const perStep = new Map<number, number>();
  const open = (data: { toolCallId: string; name: string; step: number }, decision: ReplayCall['decision']) => {
    const position = perStep.get(data.step) ?? 0;
    perStep.set(data.step, position + 1);
    const built: Building = {
      call: { toolCallId: data.toolCallId, name: data.name, step: data.step, decision, outcome: 'not_run', position },
      reached: false,
      sure: false,
    };
    const args = raw.get(data.toolCallId);
    if (args !== undefined) built.call.arguments = args;
    byId.set(data.toolCallId, built);
    order.push(built);
    return built;
  };
  for (const event of events) {
    if (event.type === 'gate_decision') {
      if (byId.has(event.data.toolCallId)) continue;
      applyDecision(open(event.data, event.data.decision).call, event.data);
    } else if (event.type === 'approval_required' && event.data.kind !== 'plan') {
      const built = byId.get(event.data.toolCallId);
      if (built !== undefined && !built.sure) {
        built.call.arguments = structuredClone(event.data.arguments);
        delete built.call.rawArguments;
      }
    } else if (event.type === 'tool_call') {
      const built = byId.get(event.data.toolCallId) ?? open(event.data, 'allowed');
      built.reached = true;
      built.sure = true;
      built.call.arguments = structuredClone(event.data.arguments);
      delete built.call.rawArguments;
    } else if (event.type === 'tool_result') {
      const known = byId.get(event.data.toolCallId);
      if (known === undefined && event.data.error?.code === 'tool_not_found') {
        const { call } = open(event.data, 'not_found');
        if (call.arguments !== undefined) call.rawArguments = true;
      }
    }
  }
  return order.map(({ call, reached }) => {
    if (reached) call.outcome = options.outcomeOf?.(call.toolCallId) ?? 'executed';
    return call;
  });
}

function applyDecision(call: PlacedCall, data: RunEventDataMap['gate_decision']): void {
  if (data.injected.length > 0) call.injected = data.injected.map((i) => i.key);
  if (data.policyRule !== undefined) call.policyRule = data.policyRule;
  const condition: unknown = 'condition' in data ? data.condition : undefined;
  if (isJsonObject(condition) && typeof condition['when'] === 'string') call.condition = condition['when'];
  if (data.reason !== undefined) call.reason = data.reason;
  if (call.arguments !== undefined) call.arguments = normalised(call.arguments, data.normalisations);
  if (call.arguments !== undefined && data.normalisations.length === 0 && data.decision === 'denied')
    call.rawArguments = true;
}

/** The model's arguments of each call, by toolCallId: a turn's calls and a plan's steps. */
function rawArguments(events: readonly RunEvent[]): Map<string, JsonObject> {
  const out = new Map<string, JsonObject>();
  for (const event of events) {
    if (event.type === 'assistant_message') {
      for (const call of event.data.calls ?? []) {
        const parsed = parseObject(call.arguments);
        if (parsed !== undefined) out.set(call.id, parsed);
      }
    } else if (event.type === 'plan_created' || event.type === 'plan_revised') {
      for (const step of event.data.steps)
        if (step.toolCallId !== undefined && step.arguments !== undefined) out.set(step.toolCallId, step.arguments);
    }
  }
  return out;
}

function parseObject(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The arguments with the gate's normalisations applied (JSON pointers; no `to`: the member was dropped). */
function normalised(args: JsonObject, changes: RunEventDataMap['gate_decision']['normalisations']): JsonObject {
  const out = structuredClone(args);
  for (const change of changes) setAtPointer(out, change.path, 'to' in change ? change.to : undefined);
  return out;
}

function setAtPointer(root: JsonObject, pointer: string, value: JsonValue | undefined): void {
  const keys = pointer
    .split('/')
    .slice(1)
    .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'));
  const last = keys.pop();
  if (last === undefined) return;
  let node: JsonValue = root;
  for (const key of keys) {
    const next: JsonValue | undefined = Array.isArray(node)
      ? node[Number(key)]
      : isJsonObject(node)
        ? node[key]
        : undefined;
    if (next === undefined || next === null || typeof next !== 'object') return;
    node = next;
  }
  if (Array.isArray(node)) {
    const index = Number(last);
    if (Number.isInteger(index) && value !== undefined) node[index] = value;
  } else if (isJsonObject(node)) {
    if (value === undefined) delete node[last];
    else node[last] = value;
  }
}
