import { STRATEGY_NAMES, ToolgateError, type StrategyName } from '../../core/index.ts';
import { auto } from './auto.ts';
import { plan } from './plan.ts';
import { react } from './react.ts';
import { reflectStrategy } from './reflect.ts';
import type { Strategy } from './strategy.ts';

export type { Checkpoint, FinishOptions, GateCallOptions, GateFn, Strategy, StrategyContext, StrategyOutcome, TurnOptions } from './strategy.ts';

const STRATEGIES: Readonly<Record<StrategyName, Strategy>> = { react, plan, reflect: reflectStrategy, auto };

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
