import { createRequire } from 'node:module';
import type * as Cel from '@marcbachmann/cel-js';
import { describeError } from '../core/describe-error.ts';
import { isRecord } from '../core/json.ts';
import type { ConditionInput } from './condition-input.ts';

/** The names a condition's CEL expression can read (ConditionInput). */
export const CONDITION_VARIABLES = ['args', 'tool', 'tenant', 'user', 'context'] as const;

/** A compiled expression: true or false for a call, or why it could not say (never throws). */
export type CelProgram = (input: ConditionInput) => { matched: boolean } | { error: string };

export type CompiledCel = { ok: true; program: CelProgram } | { ok: false; problem: string };

let environment: Cel.Environment | undefined;

/**
 * The CEL environment, built on the first compile: the library is required
 * then, not imported, so that a process whose policy has no CEL condition
 * never loads it (about 35 ms). It is pure: no I/O, no clock.
 */
function celEnvironment(): Cel.Environment {
  if (environment !== undefined) return environment;
  // require() is untyped: the module is given the type of its own declarations.
  const cel: typeof Cel = createRequire(import.meta.url)('@marcbachmann/cel-js');
  const env = new cel.Environment()
    .registerVariable('args', 'map')
    .registerVariable('tool', 'string')
    .registerVariable('tenant', 'dyn')
    .registerVariable('user', 'dyn')
    .registerVariable('context', 'map');
  // JSON numbers are CEL doubles (as in CEL's own JSON mapping), so `args.qty * 2`
  // would be a type error: an integer literal mixes with them as a double.
  const mixed: Record<string, (a: number, b: number) => number> = {
    '+': (a, b) => a + b,
    '-': (a, b) => a - b,
    '*': (a, b) => a * b,
    '/': (a, b) => a / b,
  };
  for (const [op, apply] of Object.entries(mixed)) {
    env.registerOperator(`double ${op} int: double`, (a: number, b: bigint) => apply(a, Number(b)));
    env.registerOperator(`int ${op} double: double`, (a: bigint, b: number) => apply(Number(a), b));
  }
  environment = env;
  return env;
}

/**
 * Parses and type-checks a condition once. A syntax error, an unknown
 * variable or a result that cannot be a boolean is a `problem` naming the
 * expression and the character where it goes wrong.
 */
export function compileCel(expression: string): CompiledCel {
  let env: Cel.Environment;
  try {
    env = celEnvironment();
  } catch (error) {
    return { ok: false, problem: `the CEL library could not be loaded: ${describeError(error)}` };
  }
  let parsed: Cel.ParseResult;
  try {
    parsed = env.parse(expression);
  } catch (error) {
    return { ok: false, problem: `${JSON.stringify(expression)} is not a valid CEL expression: ${celError(error)}` };
  }
  const checked = parsed.check();
  if (!checked.valid) {
    const unknown = /unknown variable/i.test(checked.error?.message ?? '')
      ? ` (the variables are ${CONDITION_VARIABLES.join(', ')})`
      : '';
    return { ok: false, problem: `${JSON.stringify(expression)}: ${celError(checked.error)}${unknown}` };
  }
  if (checked.type !== 'bool' && checked.type !== 'dyn')
    return {
      ok: false,
      problem: `${JSON.stringify(expression)} gives a ${checked.type ?? 'value'}, not true or false`,
    };
  return { ok: true, program: (input) => run(parsed, input) };
}

function run(parsed: Cel.ParseResult, input: ConditionInput): { matched: boolean } | { error: string } {
  let value: unknown;
  try {
    value = parsed({ ...input });
  } catch (error) {
    return { error: celError(error) };
  }
  if (typeof value === 'boolean') return { matched: value };
  return { error: `the expression gave ${describeValue(value)}, not true or false` };
}

/** A CEL error in one line: what is wrong and at which character (1-based) of the expression. */
function celError(error: unknown): string {
  if (!isRecord(error) || typeof error['summary'] !== 'string') return describeError(error);
  const range = error['range'];
  const start = isRecord(range) && typeof range['start'] === 'number' ? range['start'] : undefined;
  return start === undefined ? error['summary'] : `${error['summary']}, at character ${start + 1}`;
}

// The type only: the value may be an argument the audit must not show (a redacted one, a secret).
function describeValue(value: unknown): string {
  if (typeof value === 'bigint' || typeof value === 'number') return 'a number';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'a map' : `a ${typeof value}`;
}
