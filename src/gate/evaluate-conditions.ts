import type { RunEventDataMap } from '../core/events.ts';
import { compiledWhen } from './compile-condition.ts';
import type { ConditionInput } from './condition-input.ts';
import type { ApprovalMode, PolicyCondition } from './policy.ts';

/** The conditional rule that decided a call, as its gate_decision event records it (`condition`). */
export type ConditionRecord = NonNullable<RunEventDataMap['gate_decision']['condition']>;

export interface ConditionOutcome {
  /**
   * The first matching rule with `deny`: the call is refused, whatever else matched. `refusal`: the rule's `deny`;
   * `reason`: the same, or why the rule could not be evaluated.
   */
  deny?: { refusal: string; reason: string; record: ConditionRecord };
  /** The first matching rule with `approval`: it replaces the tool rule's own. */
  approval?: { mode: ApprovalMode; reason: string; record: ConditionRecord };
  /** Rules that could not be evaluated and so changed nothing (an `approval` of never or auto), in words. */
  failures: string[];
}

/**
 * Evaluates a tool's conditional rules (most specific pattern first, each in
 * list order) on a call. Deny beats allow: any matching `deny` refuses the
 * call. Otherwise the first matching `approval` decides. A rule that cannot be
 * evaluated fails closed: it matches for `deny` and `approval: required`, and
 * not for `never` or `auto`, so an error never loosens a decision.
 */
export function evaluateConditions(conditions: readonly PolicyCondition[], input: ConditionInput): ConditionOutcome {
  const outcome: ConditionOutcome = { failures: [] };
  for (const { pattern, index, rule } of conditions) {
    const when = compiledWhen(rule);
    const result = when.test(input);
    const error = 'error' in result ? result.error : undefined;
    const matched = 'matched' in result && result.matched;
    const record = (effect: ConditionRecord['effect']): ConditionRecord => ({
      pattern,
      index,
      when: when.text,
      effect,
      ...(rule.reason === undefined ? {} : { reason: rule.reason }),
      ...(error === undefined ? {} : { error }),
    });
    const failed = `the condition ${quote(when.text)} of "${pattern}" could not be evaluated (${error ?? ''})`;
    if (rule.deny !== undefined && (matched || error !== undefined)) {
      const reason = error === undefined ? rule.deny : `${failed}, so it refuses the call: ${rule.deny}`;
      return { ...outcome, deny: { refusal: rule.deny, reason, record: record('deny') } };
    }
    if (rule.approval === undefined || outcome.approval !== undefined) continue;
    if (error !== undefined && rule.approval !== 'required') {
      outcome.failures.push(`${failed}; approval stays as it was`);
    } else if (matched || error !== undefined) {
      const reason =
        error !== undefined
          ? `${failed}, so a person decides`
          : (rule.reason ?? `the condition ${quote(when.text)} of "${pattern}" matched: approval ${rule.approval}`);
      outcome.approval = { mode: rule.approval, reason, record: record('approval') };
    }
  }
  return outcome;
}

/** A condition in a sentence: an expression in backquotes, schemas shortened. */
function quote(text: string): string {
  return `\`${text.length > 120 ? `${text.slice(0, 117)}…` : text}\``;
}
