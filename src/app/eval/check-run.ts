import { costOf, escapeRegExp, isJsonObject, type JsonValue, type Run, type RunEvent } from '../../core/index.ts';
import type { EvalExpect } from './suite-schema.ts';

/** What a run cost in US dollars at its model's price (0 without one). */
export function runCost(run: Run): number {
  const price = run.settings?.price;
  return price === undefined ? 0 : costOf(run.usage, price);
}

/**
 * The checks of a case against a run and its log; each failure says what was
 * expected and what happened. Calls are the ones that ran (tool_call events,
 * arguments as they ran); decisions are the gate's verdicts.
 */
export function checkRun(expect: EvalExpect, run: Run, events: readonly RunEvent[]): string[] {
  const failures: string[] = [];
  const status = expect.status ?? 'completed';
  if (run.status !== status)
    failures.push(
      `status: expected ${status}, got ` +
        `${run.status}${run.error === undefined ? '' : ` (${run.error.code}: ${run.error.message.slice(0, 200)})`}`,
    );
  const ran = events.flatMap((e) => (e.type === 'tool_call' ? [{ name: e.data.name, args: e.data.arguments }] : []));
  for (const call of expect.calls ?? []) {
    const same = ran.filter((r) => r.name === call.tool);
    if (same.length === 0)
      failures.push(`calls: expected a call to ${call.tool}; ran: ${ran.map((r) => r.name).join(', ') || 'none'}`);
    else if (call.args !== undefined && !same.some((r) => matches(r.args, call.args ?? {}))) {
      failures.push(
        `calls: ${call.tool} ran, but never with ${JSON.stringify(call.args)} (got ${same
          .map((r) => JSON.stringify(r.args))
          .join('; ')
          .slice(0, 300)})`,
      );
    }
  }
  for (const tool of expect.notCalls ?? [])
    if (ran.some((r) => r.name === tool)) failures.push(`notCalls: ${tool} ran`);
  // The gate's verdicts: on each call, and on each step of a plan when it was checked as a whole.
  const decisions = events.flatMap((e) => {
    if (e.type === 'gate_decision') return [`${e.data.name}:${e.data.decision}`];
    if (e.type === 'plan_created' || e.type === 'plan_revised')
      return e.data.steps.flatMap((s) =>
        s.name === undefined || s.decision === undefined ? [] : [`${s.name}:${s.decision}`],
      );
    return [];
  });
  for (const d of expect.decisions ?? [])
    if (!decisions.includes(`${d.tool}:${d.decision}`))
      failures.push(
        `decisions: expected ${d.tool} ${d.decision}; the gate decided: ${decisions.join(', ') || 'nothing'}`,
      );
  const output = run.output ?? '';
  const contains = expect.output?.contains;
  for (const text of typeof contains === 'string' ? [contains] : (contains ?? [])) {
    if (!output.toLowerCase().includes(text.toLowerCase()))
      failures.push(`output: expected it to contain "${text}"; got "${output.slice(0, 200)}"`);
  }
  const pattern = expect.output?.matches;
  if (pattern !== undefined && !safeRegExp(pattern).test(output))
    failures.push(`output: expected it to match /${pattern}/; got "${output.slice(0, 200)}"`);
  if (expect.maxSteps !== undefined && run.steps > expect.maxSteps)
    failures.push(`maxSteps: ${run.steps} steps, at most ${expect.maxSteps} expected`);
  const cost = runCost(run);
  if (expect.maxCostUsd !== undefined && cost > expect.maxCostUsd)
    failures.push(`maxCostUsd: cost $${cost.toFixed(6)}, at most $${expect.maxCostUsd} expected`);
  return failures;
}

/** Every expected key is in the actual arguments with an equal value; a string "/…/" matches the value's text. */
function matches(actual: JsonValue, expected: Record<string, JsonValue>): boolean {
  if (!isJsonObject(actual)) return false;
  return Object.entries(expected).every(([key, want]) => valueMatches(actual[key], want));
}

function valueMatches(got: JsonValue | undefined, want: JsonValue): boolean {
  if (typeof want === 'string' && want.length > 2 && want.startsWith('/') && want.endsWith('/')) {
    return got !== undefined && safeRegExp(want.slice(1, -1)).test(typeof got === 'string' ? got : JSON.stringify(got));
  }
  if (isJsonObject(want)) return isJsonObject(got) && Object.entries(want).every(([k, v]) => valueMatches(got[k], v));
  return JSON.stringify(got) === JSON.stringify(want);
}

function safeRegExp(source: string): RegExp {
  try {
    return new RegExp(source);
  } catch {
    // A pattern that is not one matches as plain text.
    return new RegExp(escapeRegExp(source));
  }
}
