import type { JsonObject, JsonValue } from '../core/index.ts';
import { applyInjection, type PrepareResult } from '../gate/index.ts';
import { repairArguments } from '../parsing/index.ts';
import { formatIssuesForModel, normalizeArguments, type Validator } from '../validation/index.ts';
import type { CatalogEntry } from './tool-catalog.ts';

// The result types live in the gate, which decides on them (decideCall).
export type { PreparedCall, PrepareResult, RejectedCall } from '../gate/index.ts';

export interface PrepareInput {
  entry: CatalogEntry;
  /** Raw arguments (from the model) or an already parsed object (an approver's edit). */
  arguments: string | JsonObject;
  validator: Validator;
  injection: { user?: JsonObject; tenant?: JsonObject; context?: JsonObject };
  truncated?: boolean;
}

/**
 * parse → normalise → inject → validate, against the tool's full schema.
 * Pure and deterministic: a recovered run re-derives exactly the arguments a
 * live run would have sent.
 */
export function prepareCall(input: PrepareInput): PrepareResult {
  const { entry } = input;
  let parsed: JsonObject;
  let repairs: string[] = [];
  if (typeof input.arguments === 'string') {
    const result = repairArguments(input.arguments, input.truncated === true ? { truncated: true } : {});
    if (!result.ok) {
      return {
        ok: false,
        decision: 'invalid',
        code: 'invalid_arguments',
        message: `The arguments for ${entry.tool.name} are not a valid JSON object (${result.message}, at character ${result.position}). Call ${entry.tool.name} again with a JSON object of arguments.`,
        // Marked in the audit: turns whose calls cannot be read at all count against parseRetries.
        issues: [{ code: 'not_json', path: '', message: `${result.message}, at character ${result.position}` }],
        normalisations: [],
      };
    }
    parsed = result.arguments;
    repairs = result.repairs;
  } else {
    parsed = input.arguments;
  }
  // Shape limits (depth, size, non-finite numbers) are checked once where the
  // arguments come in (repairArguments) and by the validator below, whichever
  // comes first; normalisation and injection leave such values untouched.
  const normalised = normalizeArguments(entry.tool.inputSchema, parsed);
  const injected = applyInjection({ arguments: normalised.arguments, inject: entry.policy.inject, context: input.injection });
  if (injected.missing.length > 0) {
    return {
      ok: false,
      decision: 'denied',
      code: 'denied',
      message: `${entry.tool.name} needs server-side values that this run does not have (${injected.missing.join(', ')}); it was not called. Start the run with them (e.g. a user id, or context values).`,
      normalisations: normalised.changes,
    };
  }
  const verdict = input.validator.validate(entry.tool.inputSchema, injected.arguments as JsonValue);
  if (!verdict.ok) {
    return {
      ok: false,
      decision: 'invalid',
      code: 'invalid_arguments',
      message: formatIssuesForModel({ toolName: entry.tool.name, issues: verdict.issues, arguments: withoutKeys(injected.arguments, Object.keys(entry.policy.inject)), schema: entry.definition.parameters }),
      issues: verdict.issues,
      normalisations: normalised.changes,
    };
  }
  return { ok: true, arguments: injected.arguments, normalisations: normalised.changes, injected: injected.injected, repairs };
}

/** The model must not learn injected values from an error message. */
function withoutKeys(args: JsonObject, keys: readonly string[]): JsonObject {
  if (keys.length === 0) return args;
  return Object.fromEntries(Object.entries(args).filter(([k]) => !keys.includes(k)));
}
