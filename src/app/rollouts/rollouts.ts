import { describeError, type ArmFigures, type RunStore } from '../../core/index.ts';
import type { Settings } from '../../config/resolve-settings.ts';
import { assignRollouts, type RolloutAssignment, type RolloutContext } from './assign-rollouts.ts';
import { readRollbacks, recordRollback, type RolledBack } from './rollout-marker.ts';
import { rolloutPlans, type RolloutPlan } from './rollout-plan.ts';

/** How often the rollouts thread is read again for rollbacks other instances recorded. */
export const DEFAULT_ROLLOUT_REREAD_MS = 30_000;
/** The stats window when `stats.windowMinutes` is not set (the live statistics' default). */
const DEFAULT_WINDOW_MS = 60 * 60_000;

/** What rollbacks need of the live statistics (toolgate.stats). */
export interface RolloutStats {
  /** The rollout's treated and control runs that ended in the window (default: the stats window). */
  armFigures(name: string, windowMs?: number): { treated: ArmFigures; control: ArmFigures };
  /** Called whenever a run ends (this process's or another's, as the statistics learn of it). */
  onRunEnded(listener: () => void): () => void;
  /** Shown in GET /v1/stats from now on. */
  markRolledBack(name: string, info: { at: string; failureRate: number; threshold: number }): void;
}

/**
 * The configured rollouts of one Toolgate: which runs are treated (assign), and the automatic rollback of a rollout
 * whose treated share fails too often. The rolled-back state lives in the store (ROLLOUTS_THREAD_ID), so a restart, and
 * every instance sharing the store, sees it.
 */
export class Rollouts {
  readonly plans: readonly RolloutPlan[];
  readonly #store: RunStore;
  readonly #windowMs: number;
  readonly #rereadMs: number;
  readonly #rolledBack = new Map<string, { at: string; data: RolledBack }>();
  readonly #listeners = new Set<(rolledBack: RolledBack) => void>();
  #stats: RolloutStats | undefined;
  #unsubscribe: (() => void) | undefined;
  #restored: Promise<void> | undefined;
  #readAt = 0;
  #checking: Promise<void> | undefined;
  #recheck = false;
  #warn: (message: string) => void;

  /** Checks the config's rollouts: a bad value throws `config_invalid` here. */
  constructor(options: {
    settings: Pick<Settings, 'rollout' | 'stats'>;
    store: RunStore;
    rereadMs?: number;
    onWarning?: (message: string) => void;
  }) {
    this.plans = rolloutPlans(options.settings);
    this.#store = options.store;
    const minutes = options.settings.stats?.windowMinutes;
    this.#windowMs = minutes === undefined ? DEFAULT_WINDOW_MS : minutes * 60_000;
    this.#rereadMs = options.rereadMs ?? DEFAULT_ROLLOUT_REREAD_MS;
    this.#warn = options.onWarning ?? ((message) => process.emitWarning(message));
  }

  /** Watches the live statistics: after every run that ends, each rollout's treated arm is checked. */
  watch(stats: RolloutStats): void {
    this.#unsubscribe?.();
    this.#stats = stats;
    for (const [name, { at, data }] of this.#rolledBack)
      stats.markRolledBack(name, { at, failureRate: data.failureRate, threshold: data.threshold });
    this.#unsubscribe = this.plans.some((plan) => plan.rollback !== undefined)
      ? stats.onRunEnded(() => void this.check())
      : undefined;
  }

  /** Told of every rollback this process records (the serve command logs it). */
  onRolledBack(listener: (rolledBack: RolledBack) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The arms of a new run; the rollouts thread is read first, and again when it was read longer ago than rereadMs. */
  async assign(context: RolloutContext): Promise<RolloutAssignment> {
    if (this.plans.length === 0) return { arms: [], treated: [] };
    await this.refresh();
    return assignRollouts({ plans: this.plans, context, isRolledBack: (plan) => this.#rolledBack.has(plan.name) });
  }

  isRolledBack(name: string): boolean {
    return this.#rolledBack.has(name);
  }

  /**
   * Reads the rollbacks recorded on the rollouts thread whose fingerprint is the current config's (a changed rollout
   * starts again), unless read within rereadMs (`force`: now). A store that cannot be read is a warning: the state
   * known so far stays, and the next call tries again.
   */
  refresh(options: { force?: boolean } = {}): Promise<void> {
    if (this.plans.length === 0) return Promise.resolve();
    if (this.#restored !== undefined && options.force !== true && Date.now() - this.#readAt < this.#rereadMs)
      return this.#restored;
    this.#readAt = Date.now();
    this.#restored = this.#read().catch((error: unknown) => {
      this.#readAt = 0;
      this.#warn(`rollouts: could not read the rollbacks recorded in the store: ${describeError(error)}`);
    });
    return this.#restored;
  }

  async #read(): Promise<void> {
    for (const { at, data } of await readRollbacks(this.#store)) {
      const plan = this.plans.find((p) => p.name === data.rollout);
      if (plan === undefined || plan.fingerprint !== data.fingerprint || this.#rolledBack.has(plan.name)) continue;
      this.#rolledBack.set(plan.name, { at, data });
      this.#stats?.markRolledBack(plan.name, { at, failureRate: data.failureRate, threshold: data.threshold });
    }
  }

  /**
   * Rolls back each rollout whose treated arm has ended at least `minRuns` runs in its window and failed more often
   * than `maxFailureRate`. Calls that come while a check runs are folded into one more check after it.
   */
  check(): Promise<void> {
    if (this.#checking !== undefined) {
      this.#recheck = true;
      return this.#checking;
    }
    this.#checking = (async () => {
      try {
        do {
          this.#recheck = false;
          for (const plan of this.plans) await this.#checkOne(plan);
        } while (this.#recheck);
      } catch (error) {
        this.#warn(`rollouts: the rollback check failed: ${describeError(error)}`);
      } finally {
        this.#checking = undefined;
      }
    })();
    return this.#checking;
  }

  async #checkOne(plan: RolloutPlan): Promise<void> {
    const { rollback } = plan;
    if (rollback === undefined || this.#stats === undefined || this.#rolledBack.has(plan.name)) return;
    const windowMs = rollback.windowMs ?? this.#windowMs;
    const { treated, control } = this.#stats.armFigures(plan.name, windowMs);
    const failureRate = treated.ended === 0 ? 0 : treated.failed / treated.ended;
    if (treated.ended < rollback.minRuns || failureRate <= rollback.maxFailureRate) return;
    // Another instance may have rolled it back already: its record is the one kept.
    await this.refresh({ force: true });
    if (this.#rolledBack.has(plan.name)) return;
    const percent = (rate: number): string => `${(rate * 100).toFixed(1)}%`;
    const minutes = Math.round(windowMs / 60_000);
    const data: RolledBack = {
      rollout: plan.name,
      fingerprint: plan.fingerprint,
      failureRate,
      threshold: rollback.maxFailureRate,
      treatedRuns: treated.ended,
      controlRuns: control.ended,
      ...(control.ended === 0 ? {} : { controlFailureRate: control.failed / control.ended }),
      windowMs,
      message:
        `rollout ${plan.name} rolled back: ${treated.failed} of ${treated.ended} treated runs failed ` +
        `(${percent(failureRate)} > ${percent(rollback.maxFailureRate)}) in the last ${minutes} ` +
        `min; control: ${control.failed} of ${control.ended}. New runs get the usual setting; change the rollout ` +
        'to start it again.',
    };
    const at = new Date().toISOString();
    // Switched off here first: runs created while the record is written are no longer treated.
    this.#rolledBack.set(plan.name, { at, data });
    this.#stats.markRolledBack(plan.name, { at, failureRate, threshold: rollback.maxFailureRate });
    await recordRollback(this.#store, data);
    for (const listener of this.#listeners) listener(data);
  }

  close(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }
}
