import { readFileSync, statSync } from 'node:fs';
import { INTENTS, STRATEGY_NAMES, describeError, isJsonObject, type RouterEvidence } from '../core/index.ts';
import { isOneOf } from '../core/is-one-of.ts';

/** An eval report is a summary; a bigger file is not one. */
const MAX_RESULTS_BYTES = 32 * 1024 * 1024;

/**
 * The eval results the auto router reads (`router.evalResults`), read again
 * whenever the file changes: a new eval run changes routing without a
 * restart. A file that is missing or is not an eval report routes nothing
 * (a warning says why, once per change) — runs go on as without it.
 */
export class RouterEvidenceFile {
  readonly #path: string;
  #cached: { mtimeMs: number; size: number; evidence: RouterEvidence | undefined } | undefined;
  #warned: string | undefined;

  constructor(path: string) {
    this.#path = path;
  }

  read(): RouterEvidence | undefined {
    let stat;
    try {
      stat = statSync(this.#path);
    } catch {
      this.#warn(`router.evalResults: ${this.#path} does not exist; routing without eval results`);
      return undefined;
    }
    if (this.#cached !== undefined && this.#cached.mtimeMs === stat.mtimeMs && this.#cached.size === stat.size)
      return this.#cached.evidence;
    const evidence = this.#load(stat.size);
    this.#cached = { mtimeMs: stat.mtimeMs, size: stat.size, evidence };
    return evidence;
  }

  #load(size: number): RouterEvidence | undefined {
    if (size > MAX_RESULTS_BYTES) {
      this.#warn(
        `router.evalResults: ${this.#path} is larger than ${MAX_RESULTS_BYTES} bytes; routing without eval results`,
      );
      return undefined;
    }
    let report: unknown;
    try {
      report = JSON.parse(readFileSync(this.#path, 'utf8'));
    } catch (error) {
      this.#warn(
        `router.evalResults: ${this.#path} is not JSON (${describeError(error)}); routing without eval results`,
      );
      return undefined;
    }
    const rows = isJsonObject(report) && Array.isArray(report['byIntent']) ? report['byIntent'] : undefined;
    if (rows === undefined) {
      this.#warn(
        `router.evalResults: ${this.#path} has no "byIntent" list: ` +
          `write it with toolgate eval --out; routing without eval results`,
      );
      return undefined;
    }
    const byIntent: RouterEvidence['byIntent'] = [];
    for (const row of rows) {
      if (!isJsonObject(row)) continue;
      const { intent, strategy, passRate, avgCostUsd, runs } = row;
      if (!isOneOf(INTENTS, intent) || !isOneOf(STRATEGY_NAMES, strategy)) continue;
      if (typeof passRate !== 'number' || !(passRate >= 0 && passRate <= 1) || typeof runs !== 'number' || !(runs >= 0))
        continue;
      byIntent.push({
        intent,
        strategy,
        passRate,
        avgCostUsd: typeof avgCostUsd === 'number' && avgCostUsd >= 0 ? avgCostUsd : 0,
        runs,
      });
    }
    this.#warned = undefined;
    return { source: this.#path, byIntent };
  }

  #warn(message: string): void {
    if (this.#warned === message) return;
    this.#warned = message;
    process.emitWarning(message);
  }
}
