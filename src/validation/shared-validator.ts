import { createValidator, type Validator } from './create-validator.ts';

/**
 * Distinct schemas the process-wide validator keeps compiled. Larger than a
 * private validator's default: every tool of every server and every run share it.
 */
export const DEFAULT_SHARED_VALIDATOR_CACHE_SIZE = 2048;

let shared: Validator | undefined;

/**
 * The process's one JSON Schema validator, behind every path not given its
 * own (Toolgate, runAgent, the server). Compiling a schema costs far more than
 * checking a value against it, so a run never compiles a schema another run
 * already compiled. Schemas are keyed by content, and a schema object still in
 * use keeps its compiled form even after the content cache has dropped it.
 */
export function sharedValidator(): Validator {
  shared ??= createValidator({ cacheSize: DEFAULT_SHARED_VALIDATOR_CACHE_SIZE });
  return shared;
}
