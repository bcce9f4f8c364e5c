/**
 * Defaults that several layers must agree on (config, the loop, tool sources).
 * One place, so a documented default cannot drift between them.
 */
/** Model turns before a run fails with `max_steps`. */
export const DEFAULT_MAX_STEPS = 20;
/** Feedback rounds per turn when the model's tool calls cannot be used. */
export const DEFAULT_PARSE_RETRIES = 3;
/** Timeout of a tool call that sets none. */
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
/**
 * `maxResultBytes` (and `gateway.maxResultBytes`): a tool result larger than this (bytes of JSON) is cut before it is
 * recorded.
 */
export const DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;
/** Re-plans after a failed plan step before the model answers from what it has. */
export const DEFAULT_MAX_REPLANS = 2;
/** Tool rounds without todo_write before the todo reminder. */
export const DEFAULT_TODO_REMIND_AFTER = 3;
/** Loop detection: the same call (tool and arguments) this many times. */
export const DEFAULT_MAX_REPEATS = 3;
/** guard.maxConflicts: results that contradict an earlier result of the same call before the run plans again. */
export const DEFAULT_MAX_CONFLICTS = 2;
/** Thread history is trimmed to this many (estimated) tokens unless `threads.maxTokens` says otherwise. */
export const DEFAULT_HISTORY_MAX_TOKENS = 32_000;
/**
 * The thread of the rollouts' own marker runs (rollout_rolled_back records): not a run anyone asked for, so never
 * counted in the live statistics, never pruned, and refused as a request's threadId.
 */
export const ROLLOUTS_THREAD_ID = 'toolgate:rollouts';
