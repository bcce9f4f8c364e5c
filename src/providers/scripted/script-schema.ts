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
export interface ScriptedScript {
  description?: string;
  turns: ScriptedTurn[];
}

export interface ScriptedTurn {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  finishReason?: string;
  usage?: { promptTokens: number; completionTokens: number };
  /** Wait this long before answering (to exercise timeouts, cancellation, live streaming). */
  delayMs?: number;
}

export interface ScriptedToolCall {
  id?: string;
  name: string;
  arguments: string;
}

const count = z.number().int().nonnegative();

const toolCallSchema = z.strictObject({ id: z.string().optional(), name: z.string(), arguments: z.string() });

const turnSchema = z.strictObject({
  text: z.string().optional(),
  toolCalls: z.array(toolCallSchema).optional(),
  finishReason: z.string().optional(),
  usage: z.strictObject({ promptTokens: count, completionTokens: count }).optional(),
  delayMs: z.number().nonnegative().optional(),
});

export const scriptedScriptSchema = z.strictObject({ description: z.string().optional(), turns: z.array(turnSchema) });

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
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const where = formatPath(issue.path);
  switch (issue.code) {
    case 'invalid_type': {
      const expected = issue.expected === 'object' || issue.expected === 'array' ? `an ${issue.expected}` : `a ${issue.expected}`;
      return valueAt(input, issue.path) === undefined ? `${where} is missing (expected ${expected})` : `${where} must be ${expected}`;
    }
    case 'unrecognized_keys':
      return `${where} has unknown key${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    case 'too_small':
      return `${where} must be >= ${String(issue.minimum)}`;
    default:
      return `${where}: ${issue.message}`;
  }
}

/** Validates a parsed script; errors name the source and every bad path. */
export function parseScript(value: unknown, source: string): ScriptedScript {
  const result = scriptedScriptSchema.safeParse(value);
  if (result.success) return result.data as ScriptedScript;
  const problems = result.error.issues.map((issue) => describeIssue(issue, value));
  throw new ToolgateError('config_invalid', `invalid scripted model script ${source}: ${problems.join('; ')}`, {
    details: { source, problems },
  });
}
