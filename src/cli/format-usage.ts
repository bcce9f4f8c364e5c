import type { Usage } from '../core/index.ts';

/**
 * `1,234 tokens (1000 in, 234 out)`, or `~1,234 tokens (estimated: 1000 in, 234 out)` when
 * toolgate counted some of them itself because the model API did not report them.
 */
export function formatTokens(usage: Usage): string {
  const total = usage.totalTokens.toLocaleString('en-US');
  const parts = `${usage.promptTokens} in, ${usage.completionTokens} out`;
  return usage.estimated === true ? `~${total} tokens (estimated: ${parts})` : `${total} tokens (${parts})`;
}
