import {
  renderToolResult,
  type ApprovalReason,
  type JsonObject,
  type JsonValue,
  type ParsedToolCall,
  type Provenance,
  type ToolEffect,
} from '../../core/index.ts';
import type { Validator } from '../../validation/index.ts';
import type { ConversationState } from '../state/run-state.ts';
import { shownArguments, type CallOutcome } from '../call/execute-tool-call.ts';
import { askApproval } from './ask-approval.ts';
import type { FinishOptions, GateFn, HandedCall, TurnOutcome } from '../strategies/strategy.ts';
import type { ToolCatalog } from '../call/tool-catalog.ts';
import type { AppendFn } from '../log/transition.ts';

interface Waiting {
  call: ParsedToolCall;
  effect: ToolEffect;
  /** As the person is shown them. */
  arguments: JsonObject;
  reason: ApprovalReason;
  detail?: string;
}

export interface FinishTurnInput {
  state: ConversationState;
  append: AppendFn;
  /** The only way to a tool. */
  gate: GateFn;
  catalog: ToolCatalog;
  validator: Validator;
  redact: (value: JsonValue) => JsonValue;
  /** The values injected arguments are made of (to show a person the arguments a call would run with). */
  injection: { user?: JsonObject; tenant?: JsonObject; context?: JsonObject };
}

/**
 * Runs the calls of the open turn that have no result yet — concurrently;
 * results are kept in call order by the conversation state. A call waiting
 * for a person pauses the run (one approval at a time, in call order). A
 * write whose tool_call was committed but whose result is missing (the
 * process stopped mid-call) is never repeated silently: a person decides.
 */
export async function finishTurn(input: FinishTurnInput, options: FinishOptions = {}): Promise<TurnOutcome> {
  const { state } = input;
  const turn = state.turn;
  if (turn === undefined) return { kind: 'continue' };
  // Output of this very turn's calls does not taint its other calls: the model chose them before seeing it.
  const untrusted = untrustedBefore(state, turn.step);
  const only = options.only === undefined ? undefined : new Set(options.only);
  const todo = turn.calls.filter((c) => !turn.results.has(c.id) && (only === undefined || only.has(c.id)));

  // Each call settles on its own: one that throws never leaves another's result unrecorded or appended late.
  const settled = await Promise.allSettled(
    todo.map(async (call): Promise<{ call: ParsedToolCall; outcome: CallOutcome | Waiting }> => {
      let decision = state.decisions.get(call.id);
      if (decision === undefined) {
        const entry = input.catalog.visible.get(call.name);
        if (turn.started.has(call.id) && entry !== undefined && entry.policy.effect === 'write') {
          return {
            call,
            outcome: { call, effect: 'write', arguments: shownArguments(input, call), reason: 'outcome_unknown' },
          };
        }
        // A decision on the whole plan covers its calls that have none of their own.
        if (options.approval?.calls.has(call.id) === true) decision = options.approval.decision;
      }
      if (decision === undefined) {
        const entry = input.catalog.visible.get(call.name);
        if (state.awaiting.has(call.id) && entry !== undefined) {
          const reason = entry.policy.approval === 'required' || untrusted.length === 0 ? 'policy' : 'untrusted_output';
          return {
            call,
            outcome: { call, effect: entry.policy.effect, arguments: shownArguments(input, call), reason },
          };
        }
      }
      return { call, outcome: await input.gate(call, { step: turn.step, approval: decision }) };
    }),
  );
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure !== undefined) throw failure.reason;

  const waiting: Waiting[] = [];
  const direct: string[] = [];
  const client: HandedCall[] = [];
  for (const s of settled) {
    if (s.status !== 'fulfilled') continue;
    const { call, outcome } = s.value;
    if ('call' in outcome) waiting.push(outcome);
    else if (outcome.kind === 'pending')
      waiting.push({ call, effect: outcome.effect, arguments: outcome.arguments, reason: outcome.reason });
    else if (outcome.kind === 'unknown')
      waiting.push({
        call,
        effect: 'write',
        arguments: outcome.arguments,
        reason: 'outcome_unknown',
        detail: outcome.detail,
      });
    else if (outcome.kind === 'client')
      client.push({ toolCallId: call.id, name: call.name, arguments: outcome.arguments });
    else if (outcome.returnDirect) direct.push(renderToolResult(outcome.result));
  }

  // One approval at a time: the first waiting call in call order.
  const [first] = waiting.sort((a, b) => turn.calls.indexOf(a.call) - turn.calls.indexOf(b.call));
  if (first !== undefined) {
    const provenance: Provenance[] | undefined =
      first.effect === 'write' && untrusted.length > 0 ? untrusted.slice(-20) : undefined;
    await askApproval(
      input,
      {
        step: turn.step,
        toolCallId: first.call.id,
        name: first.call.name,
        arguments: first.arguments,
        effect: first.effect,
        reason: first.reason,
        ...(first.detail === undefined ? {} : { detail: first.detail }),
        ...(provenance === undefined ? {} : { provenance }),
      },
      `${first.call.name} needs approval`,
    );
    return { kind: 'waiting' };
  }
  if (direct.length > 0) return { kind: 'direct', output: direct.join('\n') };
  // The caller's own tools end the run, once the turn's other calls are done: it runs them and comes back.
  if (client.length > 0) {
    client.sort(
      (a, b) => turn.calls.findIndex((c) => c.id === a.toolCallId) - turn.calls.findIndex((c) => c.id === b.toolCallId),
    );
    return { kind: 'client', calls: client, step: turn.step };
  }
  return { kind: 'continue' };
}

/** Untrusted tool outputs recorded before `step`: they taint that step's writes. */
export function untrustedBefore(state: ConversationState, step: number): Provenance[] {
  return state.untrusted.filter((p) => p.step < step);
}
