import type { JsonObject, JsonSchema, JsonValue } from '../core/json.ts';
import { checkJsonShape } from '../core/json-shape.ts';
import { describeSchema } from './describe-schema.ts';
import type { ValidationIssue } from './issues.ts';
import { fieldName, pointerSegments } from './json-pointer.ts';
import { objectView } from './schema-view.ts';

/** Longest preview of a sent value, in characters. */
export const DEFAULT_VALUE_PREVIEW_LENGTH = 80;
/** Issues listed before "…and N more". */
export const DEFAULT_MAX_LISTED_ISSUES = 20;

export interface FormatIssuesInput {
  toolName: string;
  issues: ValidationIssue[];
  arguments: JsonObject;
  schema: JsonSchema;
}

/**
 * The tool result a model sees when its arguments were rejected. Written for
 * small models: one line per problem naming the field, what is expected and
 * what was sent; then the tool's required parameters with their types; then
 * a plain instruction to call again. Deterministic (same input, same text).
 */
export function formatIssuesForModel(input: FormatIssuesInput): string {
  const { toolName, issues, schema } = input;
  const brokenSchema = issues.find((issue) => issue.code === 'invalid_schema');
  if (brokenSchema !== undefined) {
    return [
      `The tool ${toolName} cannot be called: its input schema is broken (${brokenSchema.message}).`,
      `This is not a mistake in your arguments. Do not call ${toolName} again; continue without it or tell the user.`,
    ].join('\n');
  }
  const lines = [`The arguments for ${toolName} are invalid:`];
  for (const issue of issues.slice(0, DEFAULT_MAX_LISTED_ISSUES)) lines.push(`- ${issueLine(issue, input)}`);
  if (issues.length > DEFAULT_MAX_LISTED_ISSUES)
    lines.push(`- …and ${issues.length - DEFAULT_MAX_LISTED_ISSUES} more.`);
  const view = objectView(schema, schema);
  const required = [...view.required].filter((name) => view.properties.has(name));
  lines.push(
    required.length === 0
      ? `${toolName} has no required parameters.`
      : `Required parameters of ${toolName}: ` +
          `${required.map((name) => `${name} (${describeSchema(view.properties.get(name), schema)})`).join(', ')}.`,
  );
  if (issues.some((issue) => issue.code === 'additional_property') && view.properties.size > 0) {
    lines.push(`Allowed parameters: ${[...view.properties.keys()].join(', ')}.`);
  }
  lines.push(`Call ${toolName} again with corrected arguments.`);
  return lines.join('\n');
}

function issueLine(issue: ValidationIssue, input: FormatIssuesInput): string {
  const field = fieldName(issue.path);
  const expected = issue.expected === undefined ? '' : `; expected ${issue.expected}`;
  switch (issue.code) {
    case 'required':
      return `${field}: missing, but required${expected}.`;
    case 'additional_property':
      return `${field}: not a parameter of ${input.toolName}; remove it.`;
    // Shape refusals never echo the value: it is what could not be handled.
    case 'too_deep':
      return `${field}: ${issue.message}; send a flatter value (fewer nested lists and objects).`;
    case 'too_large':
      return `${field}: ${issue.message}; send fewer values, or split the work into several calls.`;
    case 'not_finite':
      return `${field}: ${issue.message}; send a number between ${-Number.MAX_VALUE} and ${Number.MAX_VALUE}.`;
    default: {
      const received = issue.received !== undefined ? issue.received : valueAt(input.arguments, issue.path);
      const sent = received === undefined ? '' : `; you sent ${preview(received)}`;
      return `${field}: ${issue.message}${issue.message.includes(issue.expected ?? '\u0000') ? '' : expected}${sent}.`;
    }
  }
}

function valueAt(args: JsonObject, path: string): JsonValue | undefined {
  let node: JsonValue | undefined = args;
  for (const segment of pointerSegments(path)) {
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (node !== null && typeof node === 'object' && Object.hasOwn(node, segment)) node = node[segment];
    else return undefined;
  }
  return node;
}

function preview(value: JsonValue): string {
  // Arguments that were never shape-checked may be too deep for JSON.stringify (it recurses), or print Infinity as
  // null.
  const problem = checkJsonShape(value, { maxNodes: Number.POSITIVE_INFINITY });
  if (problem?.code === 'too_deep') return 'a value nested too deeply to show';
  if (problem !== undefined) return 'a value holding a number out of range';
  const text = JSON.stringify(value);
  return text.length > DEFAULT_VALUE_PREVIEW_LENGTH ? `${text.slice(0, DEFAULT_VALUE_PREVIEW_LENGTH - 1)}…` : text;
}
