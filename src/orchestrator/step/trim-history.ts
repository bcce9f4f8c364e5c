import type { Message, RunEventDataMap } from '../../core/index.ts';

/** Characters per token, for the estimate (English text; the budget is a bound, not a bill). */
const CHARS_PER_TOKEN = 4;
/** Per message: role and framing. */
const MESSAGE_OVERHEAD_TOKENS = 4;
/** What is left of a shortened tool output. */
const SHORTENED_CHARS = 200;

export function estimateTokens(messages: readonly Message[]): number {
  let total = 0;
  for (const m of messages) {
    const calls =
      m.role === 'assistant' ? (m.toolCalls ?? []).reduce((n, c) => n + c.name.length + c.arguments.length, 0) : 0;
    total += MESSAGE_OVERHEAD_TOKENS + Math.ceil((m.content.length + calls) / CHARS_PER_TOKEN);
  }
  return total;
}

/**
 * Thread history cut to `budget` tokens (estimated): the oldest tool outputs
 * are shortened first, then the oldest messages dropped, a whole exchange at
 * a time (history never starts with a tool result or an assistant turn).
 * Returns what was done, for the history_trimmed event, when anything was.
 */
export function trimHistory(
  history: readonly Message[],
  budget: number,
): { messages: Message[]; trimmed?: RunEventDataMap['history_trimmed'] } {
  const tokensBefore = estimateTokens(history);
  if (tokensBefore <= budget) return { messages: [...history] };
  const messages = [...history];
  let total = tokensBefore;
  let shortened = 0;
  for (const [i, m] of messages.entries()) {
    if (total <= budget) break;
    if (m.role !== 'tool' || m.content.length <= SHORTENED_CHARS) continue;
    const left = m.content.length - SHORTENED_CHARS;
    const short: Message = {
      ...m,
      content: `${m.content.slice(0, SHORTENED_CHARS)}… [shortened: ${left} characters left out]`,
    };
    total += estimateTokens([short]) - estimateTokens([m]);
    messages[i] = short;
    shortened++;
  }
  let dropped = 0;
  while (total > budget || messages[0]?.role !== 'user') {
    const first = messages.shift();
    if (first === undefined) break;
    total -= estimateTokens([first]);
    dropped++;
  }
  return { messages, trimmed: { budget, tokensBefore, tokensAfter: total, shortened, dropped } };
}
