import { z } from 'zod';
import { ToolgateError } from '../../core/errors.ts';

/**
 * A scripted model's script: what the "model" answers on each turn. Used for
 * demos, tests and reproducing a bug without an LLM. README.md in this folder
 * documents the format with examples.
 *
 * ```json
 * { "description": "optional note",
 *   "turns": [
 *     { "text": "optional assistant text",
 *       "toolCalls": [ { "id": "optional", "name": "get_price", "arguments": "{\"area\": \"DE\"}" } ],
 *       "finishReason": "optional, default tool_calls / stop",
 *       "usage": { "promptTokens": 12, "completionTokens": 5 },
 *       "delayMs": 0 } ] }
 * ```
 *
 * `arguments` is the raw string the model "emitted" — it may be malformed on
 * purpose, to exercise repair and validation downstream.
 */
// `| undefined` on the optional members: the schema's parsed value, which
// zod types that way, is a script without a cast.
export interface ScriptedScript {
  description?: string | undefined;
  turns: ScriptedTurn[];
}

export interface ScriptedTurn {
  text?: string | undefined;
  /** Reasoning returned apart from the answer (as reasoning_content or thinking blocks are). */
  reasoning?: string | undefined;
  /** Fail this call as a provider would: the error code and message toolgate reports (e.g. model_rate_limited). */
  error?: { code: ScriptedErrorCode; message: string } | undefined;
  toolCalls?: ScriptedToolCall[] | undefined;
  finishReason?: string | undefined;
  usage?: { promptTokens: number; completionTokens: number } | undefined;
  /** Wait this long before answering (to exercise timeouts, cancellation, live streaming). */
  delayMs?: number | undefined;
}

/** The model failures a provider adapter reports. */
export const SCRIPTED_ERROR_CODES = [
  'model_auth',
  'model_not_found',
  'model_rate_limited',
  'model_unavailable',
  'model_timeout',
  'model_bad_request',
  'model_error',
  'tools_unsupported',
] as const;
export type ScriptedErrorCode = (typeof SCRIPTED_ERROR_CODES)[number];

export interface ScriptedToolCall {
  id?: string | undefined;
  name: string;
  arguments: string;
}

const count = z.number().int().nonnegative();

const toolCallSchema = z.strictObject({ id: z.string().optional(), name: z.string(), arguments: z.string() });

const usageSchema = z.strictObject({ promptTokens: count, completionTokens: count });

const errorSchema = z.strictObject({ code: z.enum(SCRIPTED_ERROR_CODES), message: z.string() });

const turnSchema = z.strictObject({
  text: z.string().optional(),
  reasoning: z.string().optional(),
  error: errorSchema.optional(),
  toolCalls: z.array(toolCallSchema).optional(),
  finishReason: z.string().optional(),
  usage: usageSchema.optional(),
  delayMs: z.number().nonnegative().optional(),
});

export const scriptedScriptSchema = z.strictObject({ description: z.string().optional(), turns: z.array(turnSchema) });

/** The keys an object may hold, by the key it sits under (the root under ''). */
const ALLOWED_KEYS: Readonly<Record<string, readonly string[]>> = {
  '': Object.keys(scriptedScriptSchema.shape),
  turns: Object.keys(turnSchema.shape),
  toolCalls: Object.keys(toolCallSchema.shape),
  usage: Object.keys(usageSchema.shape),
  error: Object.keys(errorSchema.shape),
};

/** A script with a systematic mistake repeats it on every turn; the first few say it all. */
const MAX_REPORTED_PROBLEMS = 20;

/** `["turns", 2, "toolCalls", 0, "arguments"]` → `turns[2].toolCalls[0].arguments`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? 'the script' : out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = Reflect.get(value, key);
  }
  return value;
}

/**
 * One problem in words. The script may be any file (a hostile model id can
 * point anywhere), so nothing from it is quoted: not a value, not an unknown
 * key — only our own key paths, types and key names. zod's own messages are
 * not used for that reason ("Unrecognized key: \"…\"" quotes the key).
 */
function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const where = formatPath(issue.path);
  switch (issue.code) {
    case 'invalid_type': {
      const expected =
        issue.expected === 'int'
          ? 'an integer'
          : issue.expected === 'object' || issue.expected === 'array'
            ? `an ${issue.expected}`
            : `a ${issue.expected}`;
      return valueAt(input, issue.path) === undefined
        ? `${where} is missing (expected ${expected})`
        : `${where} must be ${expected}`;
    }
    case 'unrecognized_keys': {
      const count = issue.keys.length === 1 ? 'an unknown key' : `${issue.keys.length} unknown keys`;
      const allowed = allowedKeysAt(issue.path);
      const guesses = [...new Set(issue.keys.map((key) => closestKey(key, allowed)).filter((k) => k !== undefined))];
      const hint =
        guesses.length > 0
          ? `did you mean ${guesses.map((k) => `"${k}"`).join(', ')}?`
          : `allowed: ${allowed.join(', ')}`;
      return `${where} has ${count} (${hint})`;
    }
    case 'too_small':
      return `${where} must be >= ${String(issue.minimum)}`;
    default:
      return `${where} is not valid here (${issue.code})`;
  }
}

function allowedKeysAt(path: readonly PropertyKey[]): readonly string[] {
  const parent = path.findLast((key) => typeof key === 'string');
  return ALLOWED_KEYS[parent === undefined ? '' : String(parent)] ?? [];
}

/** The allowed key a typo most likely meant (`toolcalls`, `tool_calls` → `toolCalls`), if any is close. */
function closestKey(key: string, allowed: readonly string[]): string | undefined {
  if (key.length > 40) return undefined;
  const normal = (k: string): string => k.toLowerCase().replace(/[-_\s]/g, '');
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of allowed) {
    const distance = editDistance(normal(key), normal(candidate));
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** Validates a parsed script; errors name the source and every bad path. */
export function parseScript(value: unknown, source: string): ScriptedScript {
  const result = scriptedScriptSchema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues;
  const problems = issues.slice(0, MAX_REPORTED_PROBLEMS).map((issue) => describeIssue(issue, value));
  const more = issues.length - problems.length;
  const rest = more > 0 ? `; and ${more} more problem${more === 1 ? '' : 's'}` : '';
  throw new ToolgateError('config_invalid', `invalid scripted model script ${source}: ${problems.join('; ')}${rest}`, {
    details: { source, problems, problemCount: issues.length },
  });
}
