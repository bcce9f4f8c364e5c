import {
  renderToolResult,
  type Message,
  type ParsedToolCall,
  type RawToolCall,
  type ToolResult,
} from '../../core/index.ts';
import { parseToolCall } from '../../parsing/index.ts';
import { callKey, type ConversationState, type OpenTurn } from './run-state-types.ts';
import { turnSignals } from './step-signals.ts';

/**
 * A call an event records, parsed: as this process handed it over (it read it
 * already), or from its arguments string — once, here, when the run is
 * rebuilt from its log. The caller clears the handover after the event:
 * what was handed over and not recorded (a plan that was not used) is dropped.
 */
export function takeCall(state: ConversationState, recorded: RawToolCall, truncated: boolean): ParsedToolCall {
  return state.handover.get(recorded.id) ?? parseToolCall(recorded, { truncated });
}

/** Opens a turn of calls (a model's, or a plan's steps shown to the model as its own): counted for loop detection. */
export function openTurn(
  state: ConversationState,
  turn: Pick<OpenTurn, 'step' | 'mode' | 'calls' | 'truncated' | 'shown'>,
  eventId: number,
): void {
  for (const call of turn.calls) {
    const key = callKey(call);
    if (key === undefined) continue;
    const seen = state.callRepeats.get(key);
    state.callRepeats.set(key, { name: call.name, count: (seen?.count ?? 0) + 1, lastEventId: eventId });
  }
  if (turn.calls.length === 0) return;
  state.turn = {
    step: turn.step,
    mode: turn.mode,
    calls: turn.calls,
    results: new Map(),
    started: new Set(),
    ...(turn.truncated === true ? { truncated: true } : {}),
    ...(turn.shown === undefined ? {} : { shown: turn.shown }),
  };
}

/** Results in call order, the reflection trigger, the messages the model gets next; then the deferred user messages. */
export function closeTurn(state: ConversationState, turn: OpenTurn): void {
  const ordered = turn.calls.map((call) => ({ call, result: turn.results.get(call.id) }));
  state.lastResultsIndex = state.messages.length;
  state.signalDue = turnSignals(state, turn);
  state.roundsSinceTodo = turn.calls.some((c) => c.name === 'todo_write') ? 0 : state.roundsSinceTodo + 1;
  if (state.plan?.status === 'open' && state.plan.step === turn.step) state.plan.status = 'done';
  state.reflectTrigger = reflectTrigger(
    ordered.map((o) => o.result),
    turn.slow === true,
  );
  const text = (result: ToolResult | undefined): string => (result === undefined ? '' : renderToolResult(result));
  if (turn.mode === 'prompted') {
    // Models without native tool calling do not know the `tool` role: results come back as a user message.
    const body = ordered
      .map(
        ({ call, result }) => `<tool_response name="${call.name}" id="${call.id}">\n${text(result)}\n</tool_response>`,
      )
      .join('\n');
    state.messages.push({ role: 'user', content: `Tool results:\n${body}` });
  } else {
    const ids = wireIds(turn.calls);
    for (const [i, { call, result }] of ordered.entries())
      state.messages.push({ role: 'tool', toolCallId: ids[i] ?? call.id, name: call.name, content: text(result) });
  }
  state.unusableTurns = turn.unreadable === true ? state.unusableTurns + 1 : 0;
  state.turn = undefined;
  state.messages.push(...state.deferred);
  state.deferred = [];
}

function reflectTrigger(
  results: readonly (ToolResult | undefined)[],
  slow: boolean,
): ConversationState['reflectTrigger'] {
  if (results.some((r) => r !== undefined && !r.ok)) return 'tool_failure';
  if (slow) return 'guard';
  return results.every((r) => r !== undefined && isEmptyResult(r)) ? 'empty_result' : undefined;
}

/**
 * The ids the model API sees: the model's own where they identify a call
 * (some APIs insist on their id format), toolgate's where the model repeated
 * an id within the turn (the results must still pair up).
 */
export function wireIds(calls: readonly { id: string; providerId?: string }[]): string[] {
  const seen = new Map<string, number>();
  for (const call of calls)
    if (call.providerId !== undefined && call.providerId !== '')
      seen.set(call.providerId, (seen.get(call.providerId) ?? 0) + 1);
  return calls.map((call) => {
    const own = call.providerId;
    return own !== undefined && own !== '' && seen.get(own) === 1 ? own : call.id;
  });
}

/**
 * A note from toolgate to the model (a reflection, a guard warning, a user message): after the open turn's results if
 * there is one.
 */
export function addUserMessage(state: ConversationState, text: string): void {
  const message: Message = { role: 'user', content: text };
  if (state.turn === undefined) state.messages.push(message);
  else state.deferred.push(message);
}

/** A result with nothing in it: no text, no structured content (or an empty one). */
function isEmptyResult(result: ToolResult): boolean {
  const text =
    result.content.every((c) => c.type !== 'text' || c.text.trim() === '') &&
    result.content.every((c) => c.type === 'text');
  const structured = result.structuredContent;
  const noStructure =
    structured === undefined ||
    structured === null ||
    (Array.isArray(structured) && structured.length === 0) ||
    (typeof structured === 'object' && !Array.isArray(structured) && Object.keys(structured).length === 0);
  return text && noStructure;
}
