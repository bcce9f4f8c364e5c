import type { FinishOptions, StrategyContext, StrategyOutcome } from './strategy.ts';

/**
 * Runs the open turn's calls (or some of them, see FinishOptions) through the
 * gate; returns the outcome when the run stops here: it waits for a person,
 * or a return-direct tool's answer is the run's.
 */
export async function finishCalls(ctx: StrategyContext, options?: FinishOptions): Promise<StrategyOutcome | undefined> {
  const outcome = await ctx.finishTurn(options);
  if (outcome.kind === 'waiting') return { kind: 'waiting' };
  if (outcome.kind === 'direct') return { kind: 'completed', output: outcome.output };
  if (outcome.kind === 'client') {
    return { kind: 'handed_back', output: ctx.state.turn?.shown ?? '', step: outcome.step, calls: outcome.calls };
  }
  return undefined;
}
