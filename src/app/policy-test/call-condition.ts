import { compileCel } from '../../gate/cel-expression.ts';
import type { ConditionInput } from '../../gate/condition-input.ts';

/** What a suite's `when:` sees of one call: the same variables as a `when:` condition of the policy. */
export type CallFacts = ConditionInput;

/** A parsed CEL expression: evaluate it on a call's facts. */
export interface CallCondition {
  /** As written in the suite. */
  source: string;
  /** true / false, or why the expression could not be evaluated on these facts. */
  test: (facts: CallFacts) => { matched: boolean } | { error: string };
}

/**
 * Parses and type-checks a CEL expression once (at suite load), in the policy's own CEL environment, so that a
 * condition copied between the suite and the policy means the same. Throws an Error saying what is wrong and where.
 */
export function compileCallCondition(source: string): CallCondition {
  const compiled = compileCel(source);
  if (!compiled.ok) throw new Error(compiled.problem);
  return { source, test: compiled.program };
}
