import type { Strategy } from './strategy.ts';

/**
 * ReAct: ask the model, run the tools it asks for, give it the results, and
 * again — until it answers without a tool call. Every pass starts from the
 * log: an open turn (calls without results, after an approval or a restart)
 * is finished first.
 */
export const react: Strategy = {
  name: 'react',
  async run(ctx) {
    for (;;) {
      if (ctx.state.turn !== undefined) {
        const outcome = await ctx.finishTurn();
        if (outcome.kind === 'waiting') return { kind: 'waiting' };
        if (outcome.kind === 'direct') return { kind: 'completed', output: outcome.output };
      }
      if (!ctx.checkpoint()) return { kind: 'paused' };
      const turn = await ctx.modelTurn();
      if (turn.calls.length === 0) return { kind: 'completed', output: turn.content };
    }
  },
};
