// Runs the MCP conformance suite's server scenarios (@modelcontextprotocol/conformance, a devDependency: nothing is
// installed at run time) against a URL and compares two runs check by check.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { isJsonObject } from '../../src/core/index.ts';

export const CONFORMANCE_BIN = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url),
);
/** The one file of deliberate differences, read by the test and shown in docs/gateway.md. */
export const DIFFERENCES_FILE = fileURLToPath(new URL('../fixtures/mcp/conformance-differences.json', import.meta.url));

const run = promisify(execFile);
/** How good a status is: a check may not get worse through the gateway. INFO lines are a log, not a check. */
const RANK: Record<string, number> = { FAILURE: 0, WARNING: 1, SUCCESS: 2 };

export interface CheckResult {
  status: 'SUCCESS' | 'WARNING' | 'FAILURE';
  message: string;
}

/** One run: `<scenario> / <check id>` → its status (the worst of the check's lines). */
export interface ConformanceRun {
  /** How long the suite ran. */
  ms: number;
  scenarios: Set<string>;
  checks: Map<string, CheckResult>;
}

/**
 * Runs the server scenarios against `url` and reads the per-scenario result files the suite writes to `outDir`:
 * every scenario (`--suite all`, pending ones included) in one process, or only the `scenarios` named, one process
 * each.
 */
export async function runConformance(
  url: string,
  outDir: string,
  scenarios?: readonly string[],
): Promise<ConformanceRun> {
  const started = Date.now();
  const selections = scenarios === undefined ? [['--suite', 'all']] : scenarios.map((name) => ['--scenario', name]);
  for (const selection of selections) {
    try {
      await run(process.execPath, [CONFORMANCE_BIN, 'server', '--url', url, ...selection, '-o', outDir], {
        maxBuffer: 16 * 1024 * 1024,
        timeout: 120_000,
      });
    } catch (error) {
      // It exits 1 when a check failed: the result files say which.
      if (!isJsonObject(error) || error['code'] !== 1) throw error;
    }
  }
  const ms = Date.now() - started;
  const ran = new Set<string>();
  const checks = new Map<string, CheckResult>();
  for (const entry of readdirSync(outDir)) {
    const scenario = entry.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
    ran.add(scenario);
    const lines: unknown = JSON.parse(readFileSync(join(outDir, entry, 'checks.json'), 'utf8'));
    if (!Array.isArray(lines)) throw new Error(`${entry}/checks.json is not a list of checks`);
    for (const line of lines) {
      if (!isJsonObject(line) || typeof line['id'] !== 'string' || typeof line['status'] !== 'string') continue;
      const status = line['status'];
      if (status !== 'SUCCESS' && status !== 'WARNING' && status !== 'FAILURE') continue;
      const key = `${scenario} / ${line['id']}`;
      const before = checks.get(key);
      if (before !== undefined && (RANK[before.status] ?? 0) <= (RANK[status] ?? 0)) continue;
      const message = typeof line['errorMessage'] === 'string' ? line['errorMessage'] : '';
      checks.set(key, { status, message });
    }
  }
  return { ms, scenarios: ran, checks };
}

export interface Difference {
  /** Which runs through the gateway it applies to (test names: "reference over stdio", …). */
  targets: string[];
  scenario: string;
  check: string;
  /** The gate behaviour that makes the check differ on purpose. */
  reason: string;
}

/** Reads and checks the differences file: a list of {targets, scenario, check, reason}, each field required. */
export function readDifferences(file = DIFFERENCES_FILE): Difference[] {
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const list = isJsonObject(parsed) ? parsed['differences'] : undefined;
  if (!Array.isArray(list)) throw new Error(`${file}: expected {"differences": [...]}`);
  return list.map((entry, i) => {
    const where = `${file}: differences[${i}]`;
    if (!isJsonObject(entry)) throw new Error(`${where} is not an object`);
    const extra = Object.keys(entry).filter((k) => !['targets', 'scenario', 'check', 'reason'].includes(k));
    if (extra.length > 0) throw new Error(`${where} has unknown keys ${extra.join(', ')}`);
    const { targets, scenario, check, reason } = entry;
    if (!Array.isArray(targets) || !targets.every((t) => typeof t === 'string') || targets.length === 0)
      throw new Error(`${where}.targets must be a non-empty list of run names`);
    if (typeof scenario !== 'string' || typeof check !== 'string')
      throw new Error(`${where} needs "scenario" and "check" (strings)`);
    if (typeof reason !== 'string' || reason.trim().length < 20)
      throw new Error(`${where} needs a "reason": the gate behaviour that makes the check differ`);
    return { targets: targets.filter((t) => typeof t === 'string'), scenario, check, reason };
  });
}

/**
 * The checks that are better directly than through the gateway, minus the listed differences; and the listed
 * differences for this target that no longer differ (a stale list hides nothing: it fails too).
 */
export function compareRuns(options: {
  target: string;
  direct: ConformanceRun;
  gateway: ConformanceRun;
  differences: Difference[];
}): { unexpected: string[]; stale: string[] } {
  const { target, direct, gateway } = options;
  const listed = options.differences.filter((d) => d.targets.includes(target));
  const isListed = (key: string) => listed.some((d) => `${d.scenario} / ${d.check}` === key);
  const unexpected: string[] = [];
  const differing = new Set<string>();
  for (const [key, before] of direct.checks) {
    // A run through the gateway that took only some scenarios is compared on those.
    if (!gateway.scenarios.has(key.slice(0, key.indexOf(' / ')))) continue;
    const after = gateway.checks.get(key);
    if ((RANK[after?.status ?? 'FAILURE'] ?? 0) >= (RANK[before.status] ?? 0)) continue;
    differing.add(key);
    if (isListed(key)) continue;
    const why = after === undefined ? 'no such check' : `${after.status}${after.message ? `: ${after.message}` : ''}`;
    unexpected.push(`${target}: ${key}: ${before.status} directly, through the gateway ${why.slice(0, 300)}`);
  }
  const stale = listed
    .map((d) => `${d.scenario} / ${d.check}`)
    .filter((key) => !differing.has(key))
    .map((key) => `${target}: ${key} is listed as a difference but passes through the gateway as it does directly`);
  return { unexpected, stale };
}
