import { STRATEGY_NAMES, ToolgateError, type StrategyName } from '../../core/index.ts';
import { react } from './react.ts';
import type { Strategy } from './strategy.ts';

export type { GateCallOptions, GateFn, Strategy, StrategyContext, StrategyOutcome } from './strategy.ts';

const STRATEGIES: Readonly<Record<StrategyName, Strategy>> = { react };

/** The strategy of that name; an unknown name is the caller's error, naming the known ones. */
export function strategyFor(name: string): Strategy {
  if (!isStrategyName(name)) {
    throw new ToolgateError('usage', `unknown strategy "${name.length > 40 ? `${name.slice(0, 40)}…` : name}"; known strategies: ${STRATEGY_NAMES.join(', ')}`);
  }
  return STRATEGIES[name];
}

export function isStrategyName(name: string): name is StrategyName {
  return (STRATEGY_NAMES as readonly string[]).includes(name);
}
