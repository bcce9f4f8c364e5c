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
  if (a.cacheReadTokens !== undefined || b.cacheReadTokens !== undefined) sum.cacheReadTokens = (a.cacheReadTokens ?? 0) + (b.cacheReadTokens ?? 0);
  if (a.cacheWriteTokens !== undefined || b.cacheWriteTokens !== undefined) sum.cacheWriteTokens = (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0);
  return sum;
}
