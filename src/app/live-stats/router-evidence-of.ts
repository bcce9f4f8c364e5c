import { INTENTS, type LiveRouterEvidence } from '../../core/index.ts';
import { isOneOf } from '../../core/is-one-of.ts';
import { roundUsd, StatsTally } from './stats-tally.ts';
import type { WindowRow } from './stats-window.ts';

type Entry = LiveRouterEvidence['byIntent'][number];
const ROUTES = ['answer', 'react', 'plan', 'reflect'] as const;

/** Auto runs of the window per intent × route, over every tenant and model: what `router.live` weighs. */
export function routerEvidenceOf(options: { rows: readonly WindowRow[]; windowMs: number }): LiveRouterEvidence {
  const merged = new Map<string, { intent: Entry['intent']; strategy: Entry['strategy']; tally: StatsTally }>();
  for (const { key, merged: tally } of options.rows) {
    const { intent, strategy } = key;
    if (!isOneOf(INTENTS, intent) || !isOneOf(ROUTES, strategy)) continue;
    const name = `${intent}/${strategy}`;
    let entry = merged.get(name);
    if (entry === undefined) {
      entry = { intent, strategy, tally: new StatsTally() };
      merged.set(name, entry);
    }
    entry.tally.merge(tally);
  }
  const byIntent = [...merged.values()]
    .sort((a, b) => a.intent.localeCompare(b.intent) || a.strategy.localeCompare(b.strategy))
    .map(({ intent, strategy, tally }): Entry => {
      const ended = tally.ended;
      return {
        intent,
        strategy,
        completed: tally.completed,
        failed: tally.failed,
        ...(ended === 0 ? {} : { avgCostUsd: roundUsd(tally.endedCostUsd / ended) }),
      };
    });
  return { windowMs: options.windowMs, byIntent };
}
