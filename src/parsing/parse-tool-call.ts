import { newId } from '../core/runs.ts';
import type { JsonObject } from '../core/json.ts';
import type { ParsedToolCall, RawToolCall } from '../core/tools.ts';
import type { MessageExtraction } from './extract-message.ts';
import { repairArguments } from './repair-arguments.ts';

/**
 * One call's arguments string read once, where nothing has read it before:
 * a call stored in a run's log (a run resumed after a restart, a plan's step)
 * or a native call whose tool the extractor did not know. `truncated`: the
 * model hit its token limit in the call's turn.
 */
export function parseToolCall(call: RawToolCall, options: { truncated?: boolean } = {}): ParsedToolCall {
  const read = repairArguments(call.arguments, options.truncated === true ? { truncated: true } : {});
  const base = {
    id: call.id,
    name: call.name,
    ...(call.providerId === undefined ? {} : { providerId: call.providerId }),
  };
  return read.ok
    ? { ...base, input: read.arguments }
    : { ...base, raw: call.arguments, error: { message: read.message, position: read.position } };
}

/** A call of a model's turn: as it is handed on (parsed) and as the log and the model API carry it. */
export interface TurnCall {
  parsed: ParsedToolCall;
  recorded: RawToolCall;
}

/**
 * The calls of a model's turn as the extraction read them, each with an id of
 * toolgate's own (models repeat ids, and decisions, approvals and results must
 * name one call only). A call read by the extractor is recorded with its
 * arguments as JSON; a native call it did not read (a tool it does not know,
 * arguments it could not read) is recorded as it came, keeps the model's id as
 * `providerId`, and goes on with its raw string and why when unreadable: the
 * gate answers it.
 */
export function turnCalls(
  extraction: MessageExtraction,
  native: { calls: readonly RawToolCall[]; truncated: boolean },
): TurnCall[] {
  const read = (call: { id: string; name: string; input: JsonObject; providerId?: string }): TurnCall => ({
    parsed: call,
    recorded: {
      id: call.id,
      name: call.name,
      arguments: JSON.stringify(call.input),
      ...(call.providerId === undefined ? {} : { providerId: call.providerId }),
    },
  });
  if (native.calls.length === 0)
    return extraction.result.calls.map((c) => read({ id: newId('call'), name: c.name, input: c.arguments }));
  return native.calls.flatMap((c, i): TurnCall[] => {
    const calls = extraction.native[i];
    if (calls !== undefined)
      return calls.map((r) => read({ id: newId('call'), name: r.name, input: r.arguments, providerId: c.id }));
    const recorded = { id: newId('call'), name: c.name, arguments: c.arguments, providerId: c.id };
    const error = extraction.nativeErrors[i];
    return [
      {
        parsed:
          error === undefined
            ? parseToolCall(recorded, { truncated: native.truncated })
            : { id: recorded.id, name: c.name, raw: c.arguments, error, providerId: c.id },
        recorded,
      },
    ];
  });
}
