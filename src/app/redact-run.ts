import { isJsonObject, type JsonValue, type Run } from '../core/index.ts';
import { createRedactor } from '../gate/index.ts';

/**
 * A run as it is shown: `context` holds the values injected arguments are
 * made of (user tokens, account ids), so keys that look secret are redacted,
 * as the runs API does; the stored run keeps the real values.
 */
export function redactRunContext(run: Run, redact: (value: JsonValue) => JsonValue = createRedactor()): Run {
  if (run.context === undefined) return run;
  const context = redact(run.context);
  // An object redacts to an object; anything else is shown as nothing rather than unredacted.
  return { ...run, context: isJsonObject(context) ? context : {} };
}
