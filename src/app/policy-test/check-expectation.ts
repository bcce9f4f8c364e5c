import type { JsonObject, ReplayCall, ReplayDiff, Run, RunEvent } from '../../core/index.ts';
import { matchToolPattern, type ToolRef } from '../../gate/match-tool-pattern.ts';
import type { CallFacts } from './call-condition.ts';
import type { Expectation } from './policy-suite.ts';

/** One stored run and what its replay under the configuration under test did. */
export interface ReplayedRun {
  /** The original run: its tenant, user and context are the replay's too. */
  run: Run;
  diff: ReplayDiff;
  /** The replay's events. */
  events: readonly RunEvent[];
}

/** A call an expectation failed on, as the replay made it (or as the original did, when only it made it). */
export interface FailedCall {
  toolCallId: string;
  name: string;
  step: number;
  arguments?: JsonObject;
}

export interface ExpectationFailure {
  runId: string;
  call?: FailedCall;
  /** What was expected and what happened, in a sentence. */
  reason: string;
}

export interface ExpectationResult {
  name: string;
  kind: Expectation['kind'];
  passed: boolean;
  /** How many calls (runs, for answerUnchanged) the expectation applied to: 0 means it tested nothing. */
  checked: number;
  failures: ExpectationFailure[];
}

/** The server and tool a call's name stands for, so that policy patterns match it as the gate does. */
export type ToolRefs = (name: string) => ToolRef;

/** Decisions and outcomes that mean the call got through (it ran, or would have run). */
const GOT_THROUGH: ReadonlySet<string> = new Set(['executed', 'recorded_result', 'would_run', 'read_live']);

/** Checks one expectation on every replayed run. */
export function checkExpectation(options: {
  expectation: Expectation;
  runs: readonly ReplayedRun[];
  refs: ToolRefs;
}): ExpectationResult {
  const { expectation, runs, refs } = options;
  let checked = 0;
  const failures: ExpectationFailure[] = [];
  for (const replayed of runs) {
    const outcome = checkRun({ expectation, replayed, refs });
    checked += outcome.checked;
    failures.push(...outcome.failures);
  }
  return { name: expectation.name, kind: expectation.kind, passed: failures.length === 0, checked, failures };
}

interface RunCheck {
  expectation: Expectation;
  replayed: ReplayedRun;
  refs: ToolRefs;
}

function checkRun(options: RunCheck): { checked: number; failures: ExpectationFailure[] } {
  const { expectation, replayed } = options;
  const runId = replayed.run.id;
  const failures: ExpectationFailure[] = [];
  let checked = 0;
  const fail = (reason: string, call?: ReplayCall): void => {
    failures.push({ runId, reason, ...(call === undefined ? {} : { call: failedCall(call) }) });
  };
  switch (expectation.kind) {
    case 'answerUnchanged': {
      checked = 1;
      const { answer } = replayed.diff;
      if (answer.changed) fail(`the answer changed: ${quoted(answer.before)} → ${quoted(answer.after)}`);
      break;
    }
    case 'noNewDenials':
    case 'noNewApprovals':
      for (const { before, after } of replayed.diff.calls) {
        if (before === undefined || after === undefined) continue;
        if (expectation.kind === 'noNewDenials') {
          if (before.decision !== 'allowed' && before.outcome !== 'executed') continue;
          checked += 1;
          if (after.decision === 'denied' || after.decision === 'not_found')
            fail(`${before.decision} before, ${after.decision} now${because(after)}`, after);
        } else {
          checked += 1;
          if (before.decision !== 'approval_required' && after.decision === 'approval_required')
            fail(`${before.decision} before, approval_required now${because(after)}`, after);
        }
      }
      break;
    case 'decision':
      for (const after of replayedCalls(replayed.diff)) {
        if (!matchToolPattern(expectation.tool, options.refs(after.name))) continue;
        if (expectation.when !== undefined) {
          const tested = expectation.when.test(factsOf(after, replayed.run));
          if ('error' in tested) {
            checked += 1;
            fail(
              `the when: condition could not be evaluated on this call (${tested.error}); guard it, e.g. has(args.x)`,
              after,
            );
            continue;
          }
          if (!tested.matched) continue;
        }
        checked += 1;
        if (!expectation.decisions.some((d) => d === after.decision))
          fail(`${after.decision}, expected ${expectation.decisions.join(' or ')}${because(after)}`, after);
      }
      break;
    case 'never':
      if (expectation.tenant !== undefined && replayed.run.tenantId !== expectation.tenant) break;
      return neverReached({ ...options, pattern: expectation.never });
  }
  return { checked, failures };
}

/** `never`: no call to a matching tool got through, in the diff or in the replay's own log. */
function neverReached(options: RunCheck & { pattern: string }): { checked: number; failures: ExpectationFailure[] } {
  const { replayed, refs, pattern } = options;
  const runId = replayed.run.id;
  const failures: ExpectationFailure[] = [];
  const seen = new Set<string>();
  let checked = 0;
  for (const after of replayedCalls(replayed.diff)) {
    if (!matchToolPattern(pattern, refs(after.name))) continue;
    checked += 1;
    seen.add(after.toolCallId);
    if (after.decision === 'allowed' || GOT_THROUGH.has(after.outcome))
      failures.push({ runId, call: failedCall(after), reason: `${after.decision}, ${after.outcome}` });
  }
  // A call the diff did not list still counts if the replay's log shows it was sent.
  for (const event of replayed.events) {
    if (event.type !== 'tool_call' || seen.has(event.data.toolCallId)) continue;
    const ref =
      event.data.origin === undefined ? refs(event.data.name) : refOfOrigin(event.data.name, event.data.origin);
    if (!matchToolPattern(pattern, ref)) continue;
    checked += 1;
    seen.add(event.data.toolCallId);
    const { toolCallId, name, step, arguments: args } = event.data;
    failures.push({ runId, call: { toolCallId, name, step, arguments: args }, reason: 'called in the replay' });
  }
  return { checked, failures };
}

function replayedCalls(diff: ReplayDiff): ReplayCall[] {
  return diff.calls.flatMap((c) => (c.after === undefined ? [] : [c.after]));
}

function refOfOrigin(name: string, origin: { server: string; tool: string }): ToolRef {
  return { server: origin.server, tool: origin.tool, exposedName: name };
}

/** What a `when:` condition sees of a replayed call. */
export function factsOf(call: ReplayCall, run: Run): CallFacts {
  return {
    args: call.arguments ?? {},
    tool: call.name,
    tenant: run.tenantId ?? null,
    user: userFacts(run),
    context: run.context ?? {},
  };
}

/** `user` as the gate's conditions see it: `{id?, roles}` when the run has a user or roles (RunSettings.roles). */
function userFacts(run: Run): CallFacts['user'] {
  const roles = run.settings?.roles;
  if (run.userId === undefined && roles === undefined) return null;
  return { ...(run.userId === undefined ? {} : { id: run.userId }), roles: [...(roles ?? [])] };
}

function failedCall(call: ReplayCall): FailedCall {
  const { toolCallId, name, step } = call;
  return { toolCallId, name, step, ...(call.arguments === undefined ? {} : { arguments: call.arguments }) };
}

function because(call: ReplayCall): string {
  return call.reason === undefined || call.reason === '' ? '' : ` (${call.reason})`;
}

const MAX_QUOTED = 80;

function quoted(text: string | undefined): string {
  if (text === undefined) return 'no answer';
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > MAX_QUOTED ? `${flat.slice(0, MAX_QUOTED - 1)}…` : flat);
}
