/** Token usage as reported by a model API for one call, or summed over a run. */
export interface Usage {
  /** All input tokens, cached ones included. */
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Of promptTokens, how many were read from the provider's prompt cache (when it says). */
  cacheReadTokens?: number;
  /** Of promptTokens, how many were written to the provider's prompt cache (Anthropic). */
  cacheWriteTokens?: number;
  /**
   * toolgate counted some of these tokens itself, with a tokenizer, because the
   * provider did not report them (no usage, a count left out, or a 0 for a
   * request or answer that was not empty). Absent when the provider reported
   * everything. A run's total is estimated when any of its calls was.
   */
  estimated?: true;
  /**
   * Of one call's usage: the one count that was estimated when the provider
   * reported the other (e.g. prompt tokens only). Absent when both were
   * estimated, and in a run's total.
   */
  estimatedOnly?: 'promptTokens' | 'completionTokens';
}

export const ZERO_USAGE: Usage = Object.freeze({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });

/** US dollars for some usage at a price per million tokens (input, output). */
export function costOf(usage: Usage, price: { inputPerMTok: number; outputPerMTok: number }): number {
  return (usage.promptTokens * price.inputPerMTok + usage.completionTokens * price.outputPerMTok) / 1_000_000;
}

export function addUsage(a: Usage, b: Usage | undefined): Usage {
  if (b === undefined) return a;
  const sum: Usage = {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
  // The cache counts appear only once a provider reported one, so usage without them keeps its shape.
  if (a.cacheReadTokens !== undefined || b.cacheReadTokens !== undefined)
    sum.cacheReadTokens = (a.cacheReadTokens ?? 0) + (b.cacheReadTokens ?? 0);
  if (a.cacheWriteTokens !== undefined || b.cacheWriteTokens !== undefined)
    sum.cacheWriteTokens = (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0);
  // A total that holds an estimate is an estimate; which count of which call was is in that call's usage.
  if (a.estimated === true || b.estimated === true) sum.estimated = true;
  return sum;
}

/** How many of one call's tokens toolgate estimated, by direction (0 and 0 for usage the provider reported in full). */
export function estimatedTokens(usage: Usage): { promptTokens: number; completionTokens: number } {
  if (usage.estimated !== true) return { promptTokens: 0, completionTokens: 0 };
  return {
    promptTokens: usage.estimatedOnly === 'completionTokens' ? 0 : usage.promptTokens,
    completionTokens: usage.estimatedOnly === 'promptTokens' ? 0 : usage.completionTokens,
  };
}
