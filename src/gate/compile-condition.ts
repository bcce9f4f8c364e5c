import { canonicalJson } from '../core/canonical-json.ts';
import { describeError } from '../core/describe-error.ts';
import { isRecord, type JsonSchema, type JsonValue } from '../core/json.ts';
import { sharedValidator, type IssueCode } from '../validation/index.ts';
import { compileCel, type CelProgram } from './cel-expression.ts';
import type { ConditionInput } from './condition-input.ts';
import type { ConditionalRule } from './policy.ts';

/** The parts of a call a JSON-Schema condition may check. */
export const CONDITION_PARTS = ['args', 'tenant', 'user', 'context'] as const;

type ConditionPart = (typeof CONDITION_PARTS)[number];

/** A tool rule as far as its conditions go (a policy's, or parsed config's). */
export interface ConditionsOf {
  conditions?: readonly ConditionalRule[] | undefined;
}

/** A conditional rule made ready to evaluate, once per rule object. */
export interface CompiledWhen {
  /** The condition as recorded: the expression as written, or the schemas as canonical JSON. */
  text: string;
  /** Why the condition cannot be used; it then fails on every call (see evaluateConditions). */
  problem?: string;
  test: CelProgram;
}

/** Issues that say the value could not be checked at all, rather than that it does not match. */
const UNCHECKABLE: ReadonlySet<IssueCode> = new Set(['invalid_schema', 'too_deep', 'too_large', 'not_finite', 'other']);

// Keyed by the rule object: a policy is compiled once, however many calls it decides.
const compiled = new WeakMap<ConditionalRule, CompiledWhen>();

/**
 * The rule's `when`, parsed (CEL) or compiled (JSON Schemas, with the shared
 * validator) on first use and remembered. Never throws: a condition that
 * cannot be used carries its `problem`.
 */
export function compiledWhen(rule: ConditionalRule): CompiledWhen {
  let entry = compiled.get(rule);
  if (entry === undefined) {
    entry = compile(rule);
    compiled.set(rule, entry);
  }
  return entry;
}

/**
 * Every conditional rule of the policy compiled now, and what is wrong with
 * each that cannot be used: `tools.<pattern>.conditions.<i>.<key>: <problem>`.
 */
export function checkPolicyConditions(policy: { tools: Readonly<Record<string, ConditionsOf>> }): string[] {
  const problems: string[] = [];
  for (const [pattern, rule] of Object.entries(policy.tools)) {
    if (rule.conditions === undefined) continue;
    rule.conditions.forEach((condition, i) => {
      const where = `tools.${pattern}.conditions.${i}`;
      const effect = effectProblem(condition);
      if (effect !== undefined) problems.push(`${where}: ${effect}`);
      const { problem } = compiledWhen(condition);
      if (problem !== undefined) problems.push(`${where}.when: ${problem}`);
    });
  }
  return problems;
}

/** A rule must say what it does when it matches (config checks this too; a policy written in code may not). */
function effectProblem(rule: ConditionalRule): string | undefined {
  if (rule.approval === undefined && rule.deny === undefined)
    return 'a condition sets "approval" (required, auto or never), "deny" (a reason), or both';
  if (rule.approval !== undefined && !['required', 'auto', 'never'].includes(rule.approval))
    return `approval must be required, auto or never, not ${JSON.stringify(rule.approval)}`;
  return undefined;
}

function compile(rule: ConditionalRule): CompiledWhen {
  const { when } = rule;
  if (typeof when === 'string') {
    const cel = compileCel(when);
    return cel.ok ? { text: when, test: cel.program } : broken(when, cel.problem);
  }
  if (!isRecord(when)) return broken(String(when), 'must be a CEL expression (a string) or an object of JSON Schemas');
  let text: string;
  try {
    text = canonicalJson(when);
  } catch (error) {
    return broken('(unreadable)', describeError(error));
  }
  const parts: [ConditionPart, JsonSchema][] = [];
  for (const [key, schema] of Object.entries(when)) {
    if (schema === undefined) continue;
    const part = CONDITION_PARTS.find((p) => p === key);
    if (part === undefined)
      return broken(text, `"${key}" is not a part a condition can check; use ${CONDITION_PARTS.join(', ')}`);
    if (!isRecord(schema)) return broken(text, `${key} must be a JSON Schema (an object)`);
    const problem = schemaProblem(schema);
    if (problem !== undefined) return broken(text, `${key} is not a usable JSON Schema: ${problem}`);
    parts.push([part, schema]);
  }
  if (parts.length === 0) return broken(text, `names none of ${CONDITION_PARTS.join(', ')}: it would match every call`);
  return { text, test: (input) => matchSchemas(parts, input) };
}

function matchSchemas(
  parts: readonly [ConditionPart, JsonSchema][],
  input: ConditionInput,
): { matched: boolean } | { error: string } {
  const validator = sharedValidator();
  for (const [part, schema] of parts) {
    const value: JsonValue = input[part];
    const verdict = validator.validate(schema, value);
    if (verdict.ok) continue;
    const uncheckable = verdict.issues.find((issue) => UNCHECKABLE.has(issue.code));
    if (uncheckable !== undefined) return { error: `${part} could not be checked: ${uncheckable.message}` };
    return { matched: false };
  }
  return { matched: true };
}

/** Compiles the schema now (the shared validator keeps it for the calls); why it cannot be used, if it cannot. */
function schemaProblem(schema: JsonSchema): string | undefined {
  const verdict = sharedValidator().validate(schema, null);
  if (verdict.ok) return undefined;
  const issue = verdict.issues.find((i) => i.code === 'invalid_schema');
  if (issue === undefined) return undefined;
  // The validator words this for a tool's input schema; the cause is in the brackets.
  return /^[^(]*\((.*)\);[^)]*$/s.exec(issue.message)?.[1] ?? issue.message;
}

function broken(text: string, problem: string): CompiledWhen {
  return { text, problem, test: () => ({ error: problem }) };
}
