import { ROLLOUTS_THREAD_ID, type ModelPrice, type RolloutArm, type Run, type StatsKey } from '../../core/index.ts';

/** What the statistics need of a run's record, read once per run. */
export interface RunFacts {
  /** The row before an auto run is routed (and for every other run, its whole life). */
  key: StatsKey;
  auto: boolean;
  price: ModelPrice | undefined;
  rollouts: readonly RolloutArm[];
  /** A fork (metadata.forkOf): its log starts with copies of the original's events, up to run_forked. */
  forked: boolean;
  /** Rollout markers, and runs the store no longer has. */
  uncounted: boolean;
}

/**
 * The tenant of runs without one: not a tenant id (those are 1 to 64 letters, digits, "_", "-", "."), so no
 * tenant's caller ever sees these runs as its own.
 */
export const NO_TENANT = '(none)';

export function factsOf(run: Run | undefined): RunFacts {
  if (run === undefined || run.threadId === ROLLOUTS_THREAD_ID) {
    return {
      key: { tenant: NO_TENANT, intent: '-', strategy: '-', model: '-' },
      auto: false,
      price: undefined,
      rollouts: [],
      forked: false,
      uncounted: true,
    };
  }
  const settings = run.settings;
  const gateway = settings?.gateway !== undefined;
  const strategy = gateway ? 'gateway' : (settings?.strategy ?? 'react');
  return {
    key: { tenant: run.tenantId ?? NO_TENANT, intent: '-', strategy, model: gateway ? '-' : run.model },
    auto: strategy === 'auto',
    price: settings?.price,
    rollouts: settings?.rollouts ?? [],
    forked: run.metadata?.['forkOf'] !== undefined,
    uncounted: false,
  };
}
