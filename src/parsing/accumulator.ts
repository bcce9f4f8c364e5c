import type { Outcome } from './extract-context.ts';
import { CALL_FAILURE_CODES } from './types.ts';
import type { ExtractedCall, ParseDiagnostic, Span } from './types.ts';

/** Everything one extraction has decided so far. */
export interface Accumulator {
  calls: ExtractedCall[];
  diagnostics: ParseDiagnostic[];
  /** Spans that leave the content: calls and failed attempts at calls. */
  removed: Span[];
  /** The whole text was a structured answer: this is its content. */
  answer?: string;
}

export type CommitResult = 'call' | 'example' | 'data' | 'nothing';

export function createAccumulator(): Accumulator {
  return { calls: [], diagnostics: [], removed: [] };
}

function namesOf(outcome: Outcome): string[] {
  const names = new Set<string>();
  for (const call of outcome.calls) names.add(call.name);
  for (const diagnostic of outcome.diagnostics) if (diagnostic.name !== undefined) names.add(diagnostic.name);
  return [...names];
}

/**
 * Commits what one envelope produced. Calls and failed attempts leave the
 * content; an example (per `exampleReason`) stays in the content and becomes
 * a single ignored_example diagnostic; data (echoes) only adds its diagnostics.
 */
export function commitOutcome(
  acc: Accumulator,
  outcome: Outcome,
  where: { span: Span; exampleReason: string | undefined },
): CommitResult {
  const { span, exampleReason } = where;
  const attempted = outcome.calls.length > 0 || outcome.diagnostics.some((d) => CALL_FAILURE_CODES.includes(d.code));
  if (!attempted) {
    if (outcome.diagnostics.length === 0) return 'nothing';
    acc.diagnostics.push(...outcome.diagnostics);
    return 'data';
  }
  if (exampleReason !== undefined) {
    const names = namesOf(outcome);
    const what = names.length === 0 ? 'a call-shaped block' : `a call to ${names.map((n) => `"${n}"`).join(', ')}`;
    acc.diagnostics.push({
      code: 'ignored_example',
      message: `Ignored ${what}: ${exampleReason}, so it reads as an example, not a call.`,
      span,
      ...(names.length === 1 && names[0] !== undefined ? { name: names[0] } : {}),
    });
    return 'example';
  }
  acc.calls.push(...outcome.calls);
  acc.diagnostics.push(...outcome.diagnostics);
  acc.removed.push(span);
  return 'call';
}
