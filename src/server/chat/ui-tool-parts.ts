import type { RunEvent, RunEventDataMap, RunInput } from '../../core/events.ts';
import { isRecord, type JsonValue } from '../../core/json.ts';
import { parseJson } from '../../core/parse-json.ts';
import type { ToolgateCallMetadata, UiChunk } from './ui-chunks.ts';

/** What the stream knows of one call. */
interface CallState {
  name: string;
  /**
   * The model's arguments: parsed when they are JSON, else the text it sent. Unknown for a call of a turn that is not
   * a conversation turn (a plan's steps): its part shows the arguments the gate made.
   */
  input?: JsonValue;
  metadata: ToolgateCallMetadata;
  /** Its tool part exists on the client (tool-input-available was sent). */
  announced: boolean;
  approvalId?: string;
  /** A whole plan waiting for a decision (approval_required `kind: "plan"`): it has no tool_result of its own. */
  plan: boolean;
}

/** The approval id toolgate gives a call that waits for a person: the run and the call, so a decision finds both. */
export function approvalIdOf(runId: string, toolCallId: string): string {
  return `${runId}.${toolCallId}`;
}

/**
 * The tool parts of one run's stream. A call's part is created (tool-input-available) by the first of its tool_call,
 * approval_required or tool_result, never by the model's turn alone: a part whose call has not reached the gate yet
 * (the second write of a turn whose first waits for a person) would keep the AI SDK's
 * `lastAssistantMessageIsCompleteWithApprovalResponses` from ever answering yes.
 */
export class UiToolParts {
  readonly #calls = new Map<string, CallState>();

  /** A model turn: the arguments each of its calls had as the model sent them. */
  noteTurn(data: RunEventDataMap['assistant_message']): void {
    for (const call of data.calls ?? []) {
      // The native call under the model's own id holds the arguments before repair; ids may repeat within a turn.
      const native = data.toolCalls.filter((raw) => raw.id === call.providerId);
      const text = native.length === 1 ? (native[0]?.arguments ?? call.arguments) : call.arguments;
      this.#calls.set(call.id, {
        name: call.name,
        input: readArguments(text),
        metadata: {},
        announced: false,
        plan: false,
      });
    }
  }

  decided(data: RunEventDataMap['gate_decision']): void {
    const call = this.#call(data.toolCallId, data.name);
    call.metadata = { ...call.metadata, effect: data.effect, decision: data.decision };
  }

  /** A call is about to run (tool_call): its arguments as the gate made them. */
  called(data: RunEventDataMap['tool_call']): UiChunk[] {
    const call = this.#call(data.toolCallId, data.name);
    call.metadata = { ...call.metadata, normalisedInput: data.arguments };
    return this.#announce(data.toolCallId, call);
  }

  approvalRequested(event: RunEvent<'approval_required'>): UiChunk[] {
    const { data } = event;
    const call = this.#call(data.toolCallId, data.kind === 'plan' ? 'plan' : data.name);
    call.plan = data.kind === 'plan';
    if (call.plan) call.input = data.arguments;
    call.metadata = { ...call.metadata, normalisedInput: data.arguments, effect: data.effect };
    call.metadata.decision ??= 'approval_required';
    call.approvalId = approvalIdOf(event.runId, data.toolCallId);
    const reason = data.detail === undefined ? data.reason : `${data.reason}: ${data.detail}`;
    return [
      ...this.#announce(data.toolCallId, call),
      { type: 'tool-approval-request', approvalId: call.approvalId, toolCallId: data.toolCallId, reason },
    ];
  }

  /** A person's decision; a plan's part ends with it (its steps are calls of their own). */
  inputReceived(input: RunInput): UiChunk[] {
    if (input.type !== 'approval') return [];
    const call = this.#calls.get(input.toolCallId);
    if (call?.approvalId === undefined) return [];
    const approved = input.decision !== 'reject';
    const chunks: UiChunk[] = [
      {
        type: 'tool-approval-response',
        approvalId: call.approvalId,
        approved,
        ...(input.reason === undefined ? {} : { reason: input.reason }),
      },
    ];
    if (!call.plan) return chunks;
    call.metadata = { ...call.metadata, decision: input.decision };
    if (!approved) return [...chunks, { type: 'tool-output-denied', toolCallId: input.toolCallId }];
    const output = { decision: input.decision };
    return [...chunks, { type: 'tool-output-available', ...toolChunk(input.toolCallId, call), output }];
  }

  result(data: RunEventDataMap['tool_result']): UiChunk[] {
    const call = this.#call(data.toolCallId, data.name);
    const chunks = this.#announce(data.toolCallId, call);
    const error = data.error;
    // A person said no: the AI SDK's own state for a denied approval.
    if (error?.code === 'rejected') return [...chunks, { type: 'tool-output-denied', toolCallId: data.toolCallId }];
    if (data.ok || error === undefined) {
      const output = data.structuredContent ?? resultText(data);
      return [...chunks, { type: 'tool-output-available', ...toolChunk(data.toolCallId, call), output }];
    }
    const errorText = `${error.code}: ${error.message}`;
    return [...chunks, { type: 'tool-output-error', ...toolChunk(data.toolCallId, call), errorText }];
  }

  #call(toolCallId: string, name: string): CallState {
    let call = this.#calls.get(toolCallId);
    if (call === undefined) {
      call = { name, metadata: {}, announced: false, plan: false };
      this.#calls.set(toolCallId, call);
    }
    return call;
  }

  #announce(toolCallId: string, call: CallState): UiChunk[] {
    if (call.announced) return [];
    call.announced = true;
    return [
      {
        type: 'tool-input-available',
        toolCallId,
        toolName: call.name,
        input: call.input ?? call.metadata.normalisedInput ?? {},
        dynamic: true,
        providerExecuted: true,
        toolMetadata: { ...call.metadata },
      },
    ];
  }
}

function toolChunk(
  toolCallId: string,
  call: CallState,
): { toolCallId: string; dynamic: true; providerExecuted: true; toolMetadata: ToolgateCallMetadata } {
  return { toolCallId, dynamic: true, providerExecuted: true, toolMetadata: { ...call.metadata } };
}

/** A result's text blocks (what a person reads when the tool sent no structured content). */
function resultText(data: RunEventDataMap['tool_result']): string {
  return data.content.map((block) => (block.type === 'text' ? block.text : JSON.stringify(block))).join('\n');
}

function readArguments(text: string): JsonValue {
  try {
    const value = parseJson(text);
    return isJsonValue(value) ? value : text;
  } catch {
    // Not JSON: the part shows what the model wrote; the gate's answer says what was wrong with it.
    return text;
  }
}

function isJsonValue(value: unknown): value is JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJsonValue);
  return isRecord(value) && Object.values(value).every(isJsonValue);
}
