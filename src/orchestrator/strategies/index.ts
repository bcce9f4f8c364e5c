import { STRATEGY_NAMES, ToolgateError, type StrategyName } from '../../core/index.ts';
import { auto } from './auto.ts';
import { plan } from './plan.ts';
import { react } from './react.ts';
import { reflectStrategy } from './reflect.ts';
import type { Strategy } from './strategy.ts';

const STRATEGIES: Readonly<Record<StrategyName, Strategy>> = { react, plan, reflect: reflectStrategy, auto };

/** The strategy of that name; an unknown name is the caller's error, naming the known ones. */
export function strategyFor(name: string): Strategy {
  if (!isStrategyName(name)) {
    const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
    throw new ToolgateError('usage', `unknown strategy "${shown}"; known strategies: ${STRATEGY_NAMES.join(', ')}`);
  }
  return STRATEGIES[name];
}

export function isStrategyName(name: string): name is StrategyName {
  return STRATEGY_NAMES.some((known) => known === name);
}
