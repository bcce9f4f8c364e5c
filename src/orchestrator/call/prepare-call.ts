import type { ArgumentsError, JsonObject } from '../../core/index.ts';
import { applyInjection, type InjectionContext, type PrepareResult } from '../../gate/index.ts';
import { formatIssuesForModel, normalizeArguments, type Validator } from '../../validation/index.ts';
import { UNREADABLE_ARGUMENTS } from '../state/run-state.ts';
import type { CatalogEntry } from './tool-catalog.ts';

// The result types live in the gate, which decides on them (decideCall).
export type { PreparedCall, PrepareResult, RejectedCall } from '../../gate/index.ts';

export interface PrepareInput {
  entry: CatalogEntry;
  /** The arguments as they were parsed — or why they could not be — or a person's edit. */
  source: { input: JsonObject } | { error: ArgumentsError };
  validator: Validator;
  injection: InjectionContext;
}

/**
 * normalise → inject → validate, against the tool's full schema, on
 * arguments parsed once where the call came in. Pure and deterministic: a
 * recovered run re-derives exactly the arguments a live run would have sent.
 */
export function prepareCall(input: PrepareInput): PrepareResult {
  const { entry, source } = input;
  const name = entry.tool.name;
  if (!('input' in source)) {
    const { message, position } = source.error;
    return {
      ok: false,
      decision: 'invalid',
      code: 'invalid_arguments',
      message:
        `The arguments for ${name} are not a valid JSON object (${message}, at ` +
        `character ${position}). Call ${name} again with a JSON object of arguments.`,
      // Marked in the audit: turns whose calls cannot be read at all count against parseRetries.
      issues: [{ code: UNREADABLE_ARGUMENTS, path: '', message: `${message}, at character ${position}` }],
      normalisations: [],
    };
  }
  // Shape limits (depth, size, non-finite numbers) are checked once where the
  // arguments come in (the parser) and by the validator below, whichever
  // comes first; normalisation and injection leave such values untouched.
  const normalised = normalizeArguments(entry.tool.inputSchema, source.input);
  const injected = applyInjection({
    arguments: normalised.arguments,
    inject: entry.policy.inject,
    context: input.injection,
  });
  if (injected.missing.length > 0) {
    return {
      ok: false,
      decision: 'denied',
      code: 'denied',
      message:
        `${name} needs server-side values that this run does not have (${injected.missing.join(', ')}); ` +
        `it was not called. Start the run with them (e.g. a user id, or context values).`,
      normalisations: normalised.changes,
    };
  }
  const verdict = input.validator.validate(entry.tool.inputSchema, injected.arguments);
  if (!verdict.ok) {
    return {
      ok: false,
      decision: 'invalid',
      code: 'invalid_arguments',
      message: formatIssuesForModel({
        toolName: name,
        issues: verdict.issues,
        arguments: withoutKeys(injected.arguments, Object.keys(entry.policy.inject)),
        schema: entry.definition.parameters,
      }),
      issues: verdict.issues,
      normalisations: normalised.changes,
    };
  }
  return { ok: true, arguments: injected.arguments, normalisations: normalised.changes, injected: injected.injected };
}

/** The model must not learn injected values from an error message. */
function withoutKeys(args: JsonObject, keys: readonly string[]): JsonObject {
  if (keys.length === 0) return args;
  return Object.fromEntries(Object.entries(args).filter(([k]) => !keys.includes(k)));
}
