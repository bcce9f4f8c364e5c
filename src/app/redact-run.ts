import type { JsonObject, Run } from '../core/index.ts';
import { createRedactor } from '../gate/index.ts';

/**
 * A run as it is shown: `context` holds the values injected arguments are
 * made of (user tokens, account ids), so keys that look secret are redacted,
 * as the runs API does; the stored run keeps the real values.
 */
export function redactRunContext(run: Run, patterns?: readonly string[]): Run {
  if (run.context === undefined) return run;
  return { ...run, context: createRedactor(patterns)(run.context) as JsonObject };
}
