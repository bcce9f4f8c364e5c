import type { ModelAdapter, ModelRequest, ModelResponse } from '../../src/core/index.ts';

/**
 * A model that answers with the given turns in order, recording every request
 * (cloned) it was sent; past the last turn it fails. A turn with tool calls
 * finishes with 'tool_calls' unless it says otherwise.
 */
export function scriptedModel(turns: readonly Partial<ModelResponse>[]): ModelAdapter & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    id: 'fake:model',
    requests,
    async generate(request) {
      requests.push(structuredClone(request) as ModelRequest);
      const turn = turns[requests.length - 1];
      if (turn === undefined) throw new Error('no more turns');
      return {
        text: turn.text ?? '',
        toolCalls: turn.toolCalls ?? [],
        finishReason: turn.finishReason ?? ((turn.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop'),
      };
    },
  };
}
