import { z } from 'zod';
import { unknownKeyMessage } from './unknown-key-message.ts';

/** More lines than this hide the first ones, which are usually the cause of the rest. */
export const MAX_REPORTED_CONFIG_PROBLEMS = 10;

export interface FormatConfigIssuesOptions {
  /** The file (or "config") named in the header. */
  source: string;
  issues: readonly z.core.$ZodIssue[];
  /** The schema that produced the issues: unknown keys are compared with the keys it knows at their path. */
  schema: z.ZodType;
}

/**
 * One line per problem, `<path>: <what is wrong and how to fix it>`. An issue
 * naming several unknown keys becomes one line per key, each with its own
 * suggestion.
 */
export function formatConfigIssues(options: FormatConfigIssuesOptions): string {
  const lines = options.issues.flatMap((issue) => {
    if (issue.code !== 'unrecognized_keys') return [`${formatPath(issue.path)}: ${issueMessage(issue)}`];
    const known = knownKeysAt(options.schema, issue.path) ?? [];
    return issue.keys.map((key) => `${formatPath([...issue.path, key])}: ${unknownKeyMessage(key, known)}`);
  });
  const shown = lines.slice(0, MAX_REPORTED_CONFIG_PROBLEMS).map((line) => `  - ${line}`);
  if (lines.length > shown.length) shown.push(`  … and ${lines.length - shown.length} more`);
  return (
    `${options.source} is not a valid toolgate ` +
    `config:\n${shown.join('\n')}\nEvery key is described in docs/configuration.md.`
  );
}

/**
 * What is wrong, in the schema's own words. A map key that does not fit (`prices`,
 * `tools`, `tenants`, `servers`) is said with the key's rule, not zod's
 * "Invalid key in record".
 */
export function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'invalid_key') return issue.message;
  const why = [...new Set(issue.issues.map((inner) => inner.message))].join('; ');
  return `not a valid key here: ${why}`;
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(top level)' : path.map(String).join('.');
}

/** The keys of the object schema at `path` (record keys and array indexes step into their values). */
export function knownKeysAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): string[] | undefined {
  let node: z.core.$ZodType | undefined = schema;
  for (const key of path) node = node === undefined ? undefined : childOf(node, key);
  const object = node === undefined ? undefined : objectIn(node);
  return object === undefined ? undefined : Object.keys(object.shape);
}

// Nodes are walked as zod's core type: what its wrappers hand back (unwrap, options, shape) is typed that way.
function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  let node = schema;
  while (node instanceof z.ZodOptional || node instanceof z.ZodNullable || node instanceof z.ZodDefault)
    node = node.unwrap();
  return node;
}

function objectIn(schema: z.core.$ZodType): z.ZodObject | undefined {
  const node = unwrap(schema);
  if (node instanceof z.ZodObject) return node;
  if (node instanceof z.ZodUnion) {
    for (const option of node.options) {
      const found = objectIn(option);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function childOf(schema: z.core.$ZodType, key: PropertyKey): z.core.$ZodType | undefined {
  const node = unwrap(schema);
  if (node instanceof z.ZodObject) return typeof key === 'string' ? node.shape[key] : undefined;
  if (node instanceof z.ZodRecord) return node.valueType;
  if (node instanceof z.ZodArray) return node.element;
  if (node instanceof z.ZodUnion) {
    for (const option of node.options) {
      const found = childOf(option, key);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
