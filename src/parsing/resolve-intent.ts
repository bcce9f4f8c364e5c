import { isJsonObject } from '../core/json.ts';
import type { JsonObject } from '../core/json.ts';
import { checkJsonShape } from '../core/json-shape.ts';
import type { CallIntent } from './call-shapes.ts';
import type { ExtractContext, Scope } from './extract-context.ts';
import { DEFAULT_MAX_ARGUMENTS_CHARS, repairArguments } from './repair-arguments.ts';
import { cleanToolName, unknownToolDiagnostic } from './tool-names.ts';
import type { RepairKind, Span } from './types.ts';

/**
 * The precision rules: turn a name + arguments read from the text into a call,
 * a diagnostic, or nothing.
 * - strong: the envelope is explicit call syntax (a tag, a special token);
 * - weak: plain JSON (prose, a fence): it must name a declared tool and carry
 *   an arguments object, unless the tool takes no required arguments.
 */

export interface IntentSource {
  strong: boolean;
  span: Span;
  repairs: readonly RepairKind[];
}

const IDENTIFIER_RE = /^[A-Za-z_][\w.-]{0,127}$/;
const FINAL_ANSWER_RE = /^final[ _-]?answer$/i;

function resolveName(ctx: ExtractContext, name: string, repairs: Set<RepairKind>): string {
  const cleaned = cleanToolName(name, (candidate) => ctx.tools.has(candidate));
  for (const kind of cleaned.repairs) repairs.add(kind);
  return cleaned.name;
}

export function resolveIntent(scope: Scope, intent: CallIntent, source: IntentSource): void {
  const { ctx, outcome } = scope;
  const repairs = new Set<RepairKind>(source.repairs);
  // "Final Answer" is checked before names are cleaned (cleaning would cut it at the space).
  const name =
    FINAL_ANSWER_RE.test(intent.name.trim()) && !ctx.tools.has(intent.name)
      ? intent.name.trim()
      : resolveName(ctx, intent.name, repairs);
  const tool = ctx.tools.get(name);
  const span = source.span;
  // `{"name": "Final Answer", "arguments": "…"}` is an answer; with anything but text it is a call to an undeclared
  // tool.
  if (
    FINAL_ANSWER_RE.test(name) &&
    tool === undefined &&
    (typeof intent.args === 'string' || intent.args === undefined)
  ) {
    if (typeof intent.args === 'string') outcome.answer = intent.args;
    return;
  }
  if (intent.echo) {
    if (tool !== undefined) {
      outcome.diagnostics.push({
        code: 'ignored_example',
        message: `Ignored a "${name}" object that looks like an echoed tool result, not a call.`,
        span,
        name,
      });
    }
    return;
  }
  if (tool === undefined) {
    if (intent.quiet === true) return;
    const callLike = source.strong || intent.explicit || isJsonObject(intent.args);
    if (!callLike || !IDENTIFIER_RE.test(name)) return;
    outcome.diagnostics.push(unknownToolDiagnostic(name, [...ctx.tools.keys()], span));
    return;
  }
  let args = intent.args;
  if (args === undefined || args === null) {
    if (!source.strong && !intent.explicit && tool.hasRequiredArgs !== false) {
      outcome.diagnostics.push({
        code: 'missing_arguments',
        message: `The call to "${name}" has no "arguments" object.`,
        span,
        name,
      });
      return;
    }
    if (args === null) repairs.add('null_arguments_as_empty');
    args = {};
  }
  if (typeof args === 'string') {
    const decoded = repairArguments(args);
    if (!decoded.ok) {
      outcome.diagnostics.push({
        code: 'invalid_arguments',
        message: `The arguments of "${name}" are a string that cannot be used: ${decoded.message}`,
        span,
        name,
      });
      return;
    }
    outcome.diagnostics.push({
      code: 'decoded_string_arguments',
      message: `The arguments of "${name}" were a JSON string; decoded them.`,
      span,
      name,
    });
    for (const kind of decoded.repairs) repairs.add(kind);
    args = decoded.arguments;
  }
  if (!isJsonObject(args)) {
    const got = Array.isArray(args) ? 'an array' : `a ${typeof args}`;
    outcome.diagnostics.push({
      code: 'invalid_arguments',
      message: `The arguments of "${name}" must be a JSON object, got ${got}.`,
      span,
      name,
    });
    return;
  }
  // The limits native arguments get in repairArguments, so that no envelope is a way around them.
  const refusal =
    span.end - span.start > DEFAULT_MAX_ARGUMENTS_CHARS
      ? `the call is longer than ${DEFAULT_MAX_ARGUMENTS_CHARS} characters`
      : shapeRefusal(args);
  if (refusal !== undefined) {
    outcome.diagnostics.push({
      code: 'invalid_arguments',
      message: `The arguments of "${name}" are refused: ${refusal}.`,
      span,
      name,
    });
    return;
  }
  outcome.calls.push({ name, arguments: args, raw: ctx.text.slice(span.start, span.end), span });
  if (repairs.size > 0) {
    const list = [...repairs];
    outcome.diagnostics.push({
      code: 'repaired',
      message: `Repaired the call to "${name}": ${list.join(', ')}.`,
      span,
      name,
      repairs: list,
    });
  }
}

function shapeRefusal(args: JsonObject): string | undefined {
  const problem = checkJsonShape(args);
  if (problem === undefined) return undefined;
  return problem.path === '' ? problem.message : `${problem.message} (at ${problem.path})`;
}
