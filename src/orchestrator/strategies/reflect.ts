import { reactLoop } from './react.ts';
import type { Strategy } from './strategy.ts';

/**
 * Reflection: the ReAct loop, and after a tool failure, an empty result or a
 * guard signal the model critiques what happened against the goal; its
 * verdict (`continue`, `replan`, `give_up`, `escalate`) is recorded in a
 * `reflection` event and the run follows it.
 */
export const reflectStrategy: Strategy = {
  name: 'reflect',
  run: (ctx) => reactLoop(ctx, { reflect: true }),
};
