import type { AnswerHeaders } from './http-answer.ts';

/** Longest wait between attempts, whatever Retry-After asks for. */
export const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;

/**
 * Milliseconds a server asked us to wait: `retry-after-ms` (Azure OpenAI),
 * else `Retry-After` as seconds or an HTTP date. `undefined` when absent or
 * unreadable.
 */
export function parseRetryAfter(headers: AnswerHeaders, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\s*\d+(?:\.\d+)?\s*$/.test(ms)) return Number(ms);
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  if (/^\s*\d+(?:\.\d+)?\s*$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Exponential backoff with jitter for attempt `n` (1 = the first retry): a
 * random delay in [½, 1] × base × 2^(n-1), so clients that failed together do
 * not retry together. A server's Retry-After wins when given. Both are capped.
 */
export function retryDelay(input: {
  retry: number;
  baseMs: number;
  maxMs: number;
  retryAfterMs?: number | undefined;
}): number {
  if (input.retryAfterMs !== undefined) return Math.min(input.retryAfterMs, input.maxMs);
  const exponential = input.baseMs * 2 ** (input.retry - 1);
  return Math.min(exponential * (0.5 + Math.random() * 0.5), input.maxMs);
}
