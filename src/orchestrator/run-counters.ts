import type { RawToolCall } from '../core/index.ts';
import { canonicalJson } from '../core/index.ts';
import type { ConversationState } from './conversation-state.ts';

/** Active time of the run so far, in ms (time waiting for a person excluded). */
export function activeTime(state: ConversationState, now = Date.now()): number {
  return state.activeMs + (state.activeSince === undefined ? 0 : Math.max(0, now - state.activeSince));
}

/**
 * The key loop detection counts calls by: the tool and its arguments as JSON
 * (key order ignored). Arguments that are not JSON have no key: unreadable
 * calls have their own limit (parseRetries).
 */
export function callKey(call: Pick<RawToolCall, 'name' | 'arguments'>): string | undefined {
  try {
    return `${call.name}\u0000${canonicalJson(JSON.parse(call.arguments))}`;
  } catch {
    return undefined;
  }
}


/** Counts the calls a model asked for, for loop detection. */
export function countCalls(state: ConversationState, calls: readonly RawToolCall[], eventId: number): void {
  for (const call of calls) {
    const key = callKey(call);
    if (key === undefined) continue;
    const seen = state.callRepeats.get(key);
    state.callRepeats.set(key, { name: call.name, count: (seen?.count ?? 0) + 1, lastEventId: eventId });
  }
}
