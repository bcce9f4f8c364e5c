import { createHash } from 'node:crypto';
import { STRATEGY_NAMES, ToolgateError, canonicalJson, type GuardLimits, type StrategyName } from '../../core/index.ts';
import type { Settings } from '../../config/resolve-settings.ts';
import { DEFAULT_STATS_WINDOW_MS } from '../live-stats/live-stats.ts';

/** Treated runs of a rollout that must have ended in the window before its failure rate counts. */
export const DEFAULT_ROLLBACK_MIN_RUNS = 20;

export type RolloutName = keyof NonNullable<Settings['rollout']>;
type RolloutConfig = NonNullable<NonNullable<Settings['rollout']>[RolloutName]>;

/** What a treated run gets: one setting, with a value of the setting's type. */
export type RolloutValue =
  | { setting: 'router.live'; value: boolean }
  | { setting: 'todo.enabled'; value: boolean }
  | { setting: 'strategy'; value: StrategyName }
  | { setting: 'guard'; key: keyof GuardLimits; value: number | string };

/** One configured rollout, its value checked and typed. */
export interface RolloutPlan {
  name: RolloutName;
  /** Only these tenants' runs take part; absent: every run. */
  tenants?: readonly string[];
  percent: number;
  apply: RolloutValue;
  rollback?: { maxFailureRate: number; windowMs?: number; minRuns: number };
  /** sha256 of the canonical JSON of the rollout's config: a rollback recorded under another one does not count. */
  fingerprint: string;
}

type GuardCheck = { test: (value: unknown) => boolean; expect: string; example: string };

const positiveInt: GuardCheck = {
  test: (v) => typeof v === 'number' && Number.isInteger(v) && v >= 1,
  expect: 'a positive integer',
  example: '10',
};
const countFromZero: GuardCheck = {
  test: (v) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 1000,
  expect: 'an integer from 0 to 1000',
  example: '2',
};

/** What each guard limit a rollout may set takes (as `guard:` in the config does). */
const GUARD_VALUES: Readonly<Record<string, GuardCheck>> = {
  maxToolCalls: positiveInt,
  maxTokens: positiveInt,
  maxWallMs: positiveInt,
  maxConsecutiveFailures: positiveInt,
  maxToolLatencyMs: positiveInt,
  maxToolLatencyP95Ms: positiveInt,
  maxCostUsd: { test: (v) => typeof v === 'number' && v > 0, expect: 'a positive number', example: '0.05' },
  maxConflicts: countFromZero,
  maxRepeats: countFromZero,
  onBreach: { test: (v) => v === 'fail' || v === 'degrade', expect: '"fail" or "degrade"', example: 'degrade' },
};

/**
 * The config's rollouts, each value checked against its setting: a missing or ill-typed value is a
 * `config_invalid` error naming the key with an example, said when toolgate is created (not at the first run).
 */
export function rolloutPlans(settings: Pick<Settings, 'rollout' | 'stats'>): RolloutPlan[] {
  const plans: RolloutPlan[] = [];
  const problems: string[] = [];
  const statsMinutes = settings.stats?.windowMinutes ?? DEFAULT_STATS_WINDOW_MS / 60_000;
  for (const [name, config] of Object.entries(settings.rollout ?? {})) {
    if (config === undefined || !isRolloutName(name)) continue;
    const apply = valueFor(name, config.value);
    if (typeof apply === 'string') {
      problems.push(apply);
      continue;
    }
    const { rollback } = config;
    // The rate is measured on the live statistics, which hold only their own window.
    if (rollback?.windowMinutes !== undefined && rollback.windowMinutes > statsMinutes) {
      problems.push(
        `rollout.${name}.rollback.windowMinutes: ${rollback.windowMinutes} is longer than the live statistics' ` +
          `window (stats.windowMinutes: ${statsMinutes}); shorten it or lengthen stats.windowMinutes`,
      );
      continue;
    }
    plans.push({
      name,
      percent: config.percent,
      apply,
      fingerprint: createHash('sha256')
        .update(canonicalJson({ name, ...config }))
        .digest('hex'),
      ...(config.tenants === undefined ? {} : { tenants: [...config.tenants] }),
      ...(rollback === undefined
        ? {}
        : {
            rollback: {
              maxFailureRate: rollback.maxFailureRate,
              minRuns: rollback.minRuns ?? DEFAULT_ROLLBACK_MIN_RUNS,
              ...(rollback.windowMinutes === undefined ? {} : { windowMs: rollback.windowMinutes * 60_000 }),
            },
          }),
    });
  }
  if (problems.length > 0)
    throw new ToolgateError(
      'config_invalid',
      `the config's rollouts are not valid:\n${problems.map((p) => `  - ${p}`).join('\n')}\n` +
        'Rollouts are described in docs/strategies.md ("Rollouts").',
      { details: { problems } },
    );
  return plans;
}

function isRolloutName(name: string): name is RolloutName {
  return name === 'router.live' || name === 'strategy' || name === 'todo.enabled' || name.startsWith('guard.');
}

/** The typed value of one rollout, or the problem with it. */
function valueFor(name: RolloutName, value: RolloutConfig['value']): RolloutValue | string {
  const key = `rollout.${name}.value`;
  if (name === 'router.live' || name === 'todo.enabled') {
    if (value === undefined || typeof value === 'boolean')
      return name === 'router.live' ? { setting: name, value: value ?? true } : { setting: name, value: value ?? true };
    return `${key}: expected true or false (default true), got ${JSON.stringify(value)}`;
  }
  if (name === 'strategy') {
    const strategy = STRATEGY_NAMES.find((known) => known === value);
    if (strategy !== undefined) return { setting: 'strategy', value: strategy };
    return (
      `${key}: expected one of ${STRATEGY_NAMES.join(', ')}, got ${describe(value)}; ` +
      `e.g. rollout: { strategy: { value: plan, percent: 10 } }`
    );
  }
  const guardKey = name.slice('guard.'.length);
  const check = GUARD_VALUES[guardKey];
  if (check === undefined || !isGuardKey(guardKey)) return `${key}: unknown guard limit "${guardKey}"`;
  if ((typeof value === 'number' || typeof value === 'string') && check.test(value))
    return { setting: 'guard', key: guardKey, value };
  return (
    `${key}: expected ${check.expect}, got ${describe(value)}; ` +
    `e.g. rollout: { ${name}: { value: ${check.example}, percent: 10 } }`
  );
}

function isGuardKey(key: string): key is keyof GuardLimits {
  return Object.hasOwn(GUARD_VALUES, key);
}

function describe(value: unknown): string {
  return value === undefined ? 'no value' : JSON.stringify(value);
}
