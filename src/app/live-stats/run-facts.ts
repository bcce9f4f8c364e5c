import { ROLLOUTS_THREAD_ID, type ModelPrice, type RolloutArm, type Run, type StatsKey } from '../../core/index.ts';

export type Intent = 'answer' | 'lookup' | 'change';

/** What the statistics need of a run's record, read once per run. */
export interface RunFacts {
  /** The row before an auto run is routed (and for every other run, its whole life). */
  key: StatsKey;
  auto: boolean;
  price: ModelPrice | undefined;
  rollouts: readonly RolloutArm[];
  /** Rollout markers, and runs the store no longer has. */
  uncounted: boolean;
}

export function factsOf(run: Run | undefined): RunFacts {
  if (run === undefined || run.threadId === ROLLOUTS_THREAD_ID) {
    return {
      key: { tenant: '-', intent: '-', strategy: '-', model: '-' },
      auto: false,
      price: undefined,
      rollouts: [],
      uncounted: true,
    };
  }
  const settings = run.settings;
  const gateway = settings?.gateway !== undefined;
  const strategy = gateway ? 'gateway' : (settings?.strategy ?? 'react');
  return {
    key: { tenant: run.tenantId ?? '-', intent: '-', strategy, model: gateway ? '-' : run.model },
    auto: strategy === 'auto',
    price: settings?.price,
    rollouts: settings?.rollouts ?? [],
    uncounted: false,
  };
}

/** The intent a route serves when intent_routed does not name it (events recorded before it did). */
export function intentOfRoute(route: string): Intent {
  if (route === 'answer') return 'answer';
  if (route === 'plan') return 'change';
  return 'lookup';
}
