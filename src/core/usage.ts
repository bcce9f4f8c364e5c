/** Token usage as reported by a model API for one call, or summed over a run. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export const ZERO_USAGE: Usage = Object.freeze({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });

/** US dollars for some usage at a price per million tokens (input, output). */
export function costOf(usage: Usage, price: { inputPerMTok: number; outputPerMTok: number }): number {
  return (usage.promptTokens * price.inputPerMTok + usage.completionTokens * price.outputPerMTok) / 1_000_000;
}

export function addUsage(a: Usage, b: Usage | undefined): Usage {
  if (b === undefined) return a;
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}
