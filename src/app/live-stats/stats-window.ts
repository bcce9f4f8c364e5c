import type { StatsFilter, StatsKey } from '../../core/index.ts';
import { StatsTally } from './stats-tally.ts';

/** The window is cut into this many buckets: it slides one bucket at a time, and the series have this many points. */
export const BUCKETS_PER_WINDOW = 60;
/** Distinct keys kept over the window; beyond, a tenant's new keys are counted under its overflow key. */
export const DEFAULT_MAX_KEYS = 5000;
/** Distinct keys of one tenant kept over the window: one tenant's many models cannot push the others out. */
export const DEFAULT_MAX_KEYS_PER_TENANT = 500;

/** Where a tenant's keys beyond the caps are counted: its own row, so no tenant ever sees another's runs. */
function overflowKey(tenant: string): StatsKey {
  return { tenant, intent: 'other', strategy: 'other', model: 'other' };
}

export type ArmName = 'treated' | 'control';

interface Bucket {
  rows: Map<string, { key: StatsKey; tally: StatsTally }>;
  /** Per rollout and tenant. */
  arms: Map<string, ArmTallies>;
}

interface ArmTallies extends Record<ArmName, StatsTally> {
  rollout: string;
  tenant: string;
}

/** One key's tallies over the window: merged, and per bucket (oldest first, undefined where it had none). */
export interface WindowRow {
  key: StatsKey;
  merged: StatsTally;
  perBucket: (StatsTally | undefined)[];
}

/**
 * The tallies of the window, per time bucket (index = floor(ms / bucketMs)): what is added lands in the bucket of the
 * event's own time, buckets older than the window are dropped as it slides.
 */
export class StatsWindow {
  readonly windowMs: number;
  readonly bucketMs: number;
  readonly #buckets = new Map<number, Bucket>();
  /** Per key: how many buckets hold it (the cap counts keys across the window). */
  readonly #keyBuckets = new Map<string, number>();
  /** Per tenant: how many of its keys the window holds. */
  readonly #tenantKeys = new Map<string, number>();
  readonly #maxKeys: number;
  readonly #maxKeysPerTenant: number;
  /** The first index of the window at the last slide. */
  #slidTo: number | undefined;

  constructor(options: { windowMs: number; maxKeys?: number; maxKeysPerTenant?: number }) {
    this.windowMs = options.windowMs;
    this.bucketMs = Math.max(1, Math.floor(options.windowMs / BUCKETS_PER_WINDOW));
    this.#maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
    this.#maxKeysPerTenant = options.maxKeysPerTenant ?? DEFAULT_MAX_KEYS_PER_TENANT;
  }

  /** The first bucket index in the window at `now` (the last is the bucket of `now`). */
  firstIndex(now: number): number {
    return this.#indexOf(now) - BUCKETS_PER_WINDOW + 1;
  }

  /** Whether an event of this time still counts at `now`. */
  holds(time: number, now: number): boolean {
    return this.#indexOf(time) >= this.firstIndex(now);
  }

  /** The tally of a key in the bucket of `time`, or undefined when that time is older than the window. */
  tally(options: { key: StatsKey; time: number; now: number }): StatsTally | undefined {
    const bucket = this.#bucket(options.time, options.now);
    if (bucket === undefined) return undefined;
    let name = keyName(options.key);
    let key = options.key;
    let row = bucket.rows.get(name);
    if (row === undefined && !this.#keyBuckets.has(name) && this.#full(key.tenant)) {
      key = overflowKey(key.tenant);
      name = keyName(key);
      row = bucket.rows.get(name);
    }
    if (row === undefined) {
      row = { key: { ...key }, tally: new StatsTally() };
      bucket.rows.set(name, row);
      const held = this.#keyBuckets.get(name) ?? 0;
      this.#keyBuckets.set(name, held + 1);
      if (held === 0) this.#tenantKeys.set(key.tenant, (this.#tenantKeys.get(key.tenant) ?? 0) + 1);
    }
    return row.tally;
  }

  /**
   * The tally of one arm of a rollout for one tenant's runs in the bucket of `time` (undefined when older than the
   * window): kept per tenant so that a tenant's caller sees only its own runs.
   */
  arm(options: { rollout: string; tenant: string; arm: ArmName; time: number; now: number }): StatsTally | undefined {
    const bucket = this.#bucket(options.time, options.now);
    if (bucket === undefined) return undefined;
    const name = JSON.stringify([options.rollout, options.tenant]);
    let arms = bucket.arms.get(name);
    if (arms === undefined) {
      arms = { rollout: options.rollout, tenant: options.tenant, treated: new StatsTally(), control: new StatsTally() };
      bucket.arms.set(name, arms);
    }
    return arms[options.arm];
  }

  /** The rows of the window that pass the filter. */
  rows(now: number, filter: StatsFilter = {}): WindowRow[] {
    this.slide(now);
    const first = this.firstIndex(now);
    const rows = new Map<string, WindowRow>();
    for (const [index, bucket] of this.#buckets) {
      const at = index - first;
      for (const [name, { key, tally }] of bucket.rows) {
        if (!matches(key, filter)) continue;
        let row = rows.get(name);
        if (row === undefined) {
          row = { key, merged: new StatsTally(), perBucket: new Array<StatsTally | undefined>(BUCKETS_PER_WINDOW) };
          rows.set(name, row);
        }
        row.merged.merge(tally);
        row.perBucket[at] = tally;
      }
    }
    return [...rows.values()];
  }

  /** A rollout's arms (of one tenant, or all) merged over the buckets that start at or after `since` (ms). */
  arms(options: { rollout: string; now: number; since: number; tenant?: string }): Record<ArmName, StatsTally> {
    this.slide(options.now);
    const out = { treated: new StatsTally(), control: new StatsTally() };
    const from = this.#indexOf(options.since);
    for (const [index, bucket] of this.#buckets) {
      if (index < from) continue;
      for (const arms of bucket.arms.values()) {
        if (arms.rollout !== options.rollout) continue;
        if (options.tenant !== undefined && arms.tenant !== options.tenant) continue;
        out.treated.merge(arms.treated);
        out.control.merge(arms.control);
      }
    }
    return out;
  }

  /** The names of the rollouts with figures in the window (of one tenant's runs, or all). */
  rolloutNames(now: number, tenant?: string): string[] {
    this.slide(now);
    const names = new Set<string>();
    for (const bucket of this.#buckets.values())
      for (const arms of bucket.arms.values())
        if (tenant === undefined || arms.tenant === tenant) names.add(arms.rollout);
    return [...names].sort();
  }

  /** Drops the buckets the window left behind. */
  slide(now: number): void {
    const first = this.firstIndex(now);
    // Called for every event counted: the buckets are walked only when the window has moved since the last slide
    // (every bucket added since is at or after the first index then, as #bucket adds none before it).
    if (first === this.#slidTo) return;
    this.#slidTo = first;
    for (const [index, bucket] of this.#buckets) {
      if (index >= first) continue;
      this.#buckets.delete(index);
      for (const [name, { key }] of bucket.rows) {
        const left = (this.#keyBuckets.get(name) ?? 1) - 1;
        if (left > 0) {
          this.#keyBuckets.set(name, left);
          continue;
        }
        this.#keyBuckets.delete(name);
        const tenantLeft = (this.#tenantKeys.get(key.tenant) ?? 1) - 1;
        if (tenantLeft <= 0) this.#tenantKeys.delete(key.tenant);
        else this.#tenantKeys.set(key.tenant, tenantLeft);
      }
    }
  }

  /** Whether a new key of this tenant goes to its overflow row (the overflow row itself is always kept). */
  #full(tenant: string): boolean {
    return this.#keyBuckets.size >= this.#maxKeys || (this.#tenantKeys.get(tenant) ?? 0) >= this.#maxKeysPerTenant;
  }

  #bucket(time: number, now: number): Bucket | undefined {
    this.slide(now);
    // A clock ahead of ours (another instance) counts in the bucket of now, not in one the window has not reached.
    const index = Math.min(this.#indexOf(time), this.#indexOf(now));
    if (index < this.firstIndex(now)) return undefined;
    let bucket = this.#buckets.get(index);
    if (bucket === undefined) {
      bucket = { rows: new Map(), arms: new Map() };
      this.#buckets.set(index, bucket);
    }
    return bucket;
  }

  #indexOf(ms: number): number {
    return Math.floor(ms / this.bucketMs);
  }
}

/** Each key object's name: a run keeps its key object from event to event (a new one when it is routed). */
const keyNames = new WeakMap<StatsKey, string>();

function keyName(key: StatsKey): string {
  let name = keyNames.get(key);
  if (name === undefined) {
    name = JSON.stringify([key.tenant, key.intent, key.strategy, key.model]);
    keyNames.set(key, name);
  }
  return name;
}

function matches(key: StatsKey, filter: StatsFilter): boolean {
  return (
    (filter.tenant === undefined || key.tenant === filter.tenant) &&
    (filter.intent === undefined || key.intent === filter.intent) &&
    (filter.strategy === undefined || key.strategy === filter.strategy) &&
    (filter.model === undefined || key.model === filter.model)
  );
}
