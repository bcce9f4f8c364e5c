import type { ReplayCall, ReplayCallChange, ReplayCallOutcome, ReplayDiff, Run, RunEvent } from '../../core/index.ts';
import { argumentChanges } from './argument-changes.ts';
import { callsOf, type CallsOfOptions, type PlacedCall } from './replay-calls.ts';

export interface DecisionDiffInput {
  /** The stored run. */
  original: { run: Run; events: readonly RunEvent[] };
  /** Its replay. */
  replay: { run: Run; events: readonly RunEvent[] };
  /** What became of the replay's calls that reached their tool (see CallsOfOptions.outcomeOf). */
  outcomeOf?: CallsOfOptions['outcomeOf'];
  model?: ReplayDiff['model'];
  divergedAtStep?: number;
}

/** Outcomes that mean the same for a diff: the call ran and its result is the one the tool gave. */
const RAN: ReadonlySet<ReplayCallOutcome> = new Set(['executed', 'recorded_result', 'read_live']);

/**
 * What changed between a run and its replay, call by call. Calls are paired in order by (step, place in the turn)
 * when their names agree, then by name; a call only the replay made is `added`, one only the original made `missing`.
 * Pure: it reads the two logs and nothing else.
 */
export function decisionDiff(input: DecisionDiffInput): ReplayDiff {
  const before = callsOf(input.original.events);
  const after = callsOf(input.replay.events, input.outcomeOf === undefined ? {} : { outcomeOf: input.outcomeOf });
  const calls = pairCalls(before, after).map(([b, a]) => changeOf(b, a));
  const answer = {
    ...(input.original.run.output === undefined ? {} : { before: input.original.run.output }),
    ...(input.replay.run.output === undefined ? {} : { after: input.replay.run.output }),
    changed: input.original.run.output !== input.replay.run.output,
  };
  const status = { before: input.original.run.status, after: input.replay.run.status };
  const changed = answer.changed || status.before !== status.after || calls.some((c) => c.kind !== 'same');
  return {
    of: input.original.run.id,
    calls,
    answer,
    status,
    changed,
    model: input.model ?? 'recorded',
    ...(input.divergedAtStep === undefined ? {} : { divergedAtStep: input.divergedAtStep }),
  };
}

type Pair = [PlacedCall | undefined, PlacedCall | undefined];

/** Pairs by (step, position) with the same name, then the rest by name in order; sorted as the runs made them. */
function pairCalls(before: readonly PlacedCall[], after: readonly PlacedCall[]): Pair[] {
  const pairs: Pair[] = [];
  const usedAfter = new Set<PlacedCall>();
  const unpaired: PlacedCall[] = [];
  for (const b of before) {
    const a = after.find((c) => !usedAfter.has(c) && c.step === b.step && c.position === b.position);
    if (a !== undefined && a.name === b.name) {
      usedAfter.add(a);
      pairs.push([b, a]);
    } else unpaired.push(b);
  }
  for (const b of unpaired) {
    const a = after.find((c) => !usedAfter.has(c) && c.name === b.name);
    if (a !== undefined) usedAfter.add(a);
    pairs.push([b, a]);
  }
  for (const a of after) if (!usedAfter.has(a)) pairs.push([undefined, a]);
  const place = ([b, a]: Pair): [number, number] => {
    const call = b ?? a;
    return call === undefined ? [0, 0] : [call.step, call.position + (b === undefined ? 0.5 : 0)];
  };
  return pairs.sort((x, y) => {
    const [sx, px] = place(x);
    const [sy, py] = place(y);
    return sx - sy || px - py;
  });
}

function changeOf(before: PlacedCall | undefined, after: PlacedCall | undefined): ReplayCallChange {
  if (before === undefined && after !== undefined)
    return { kind: 'added', after: plain(after), changes: [`added: ${describeCall(after)}`] };
  if (after === undefined && before !== undefined)
    return { kind: 'missing', before: plain(before), changes: [`missing: ${describeCall(before)}`] };
  if (before === undefined || after === undefined) return { kind: 'same', changes: [] };
  const changes: string[] = [];
  if (before.decision !== after.decision) changes.push(`decision: ${before.decision} → ${after.decision}`);
  if (before.condition !== after.condition)
    changes.push(`condition: ${before.condition ?? '(none)'} → ${after.condition ?? '(none)'}`);
  // The model's arguments as written are compared only with arguments as written: not normalised is not a change.
  if (before.rawArguments === after.rawArguments) changes.push(...argumentChanges(before, after));
  const injectedBefore = [...(before.injected ?? [])].sort();
  const injectedAfter = [...(after.injected ?? [])].sort();
  if (injectedBefore.join('\u0000') !== injectedAfter.join('\u0000'))
    changes.push(`injected: ${listOf(injectedBefore)} → ${listOf(injectedAfter)}`);
  if (before.outcome !== after.outcome && !(RAN.has(before.outcome) && RAN.has(after.outcome)))
    changes.push(`outcome: ${before.outcome} → ${after.outcome}`);
  return { kind: changes.length === 0 ? 'same' : 'changed', before: plain(before), after: plain(after), changes };
}

/** A call as ReplayCall has it (without the position the pairing used). */
function plain(call: PlacedCall): ReplayCall {
  const { position: _position, rawArguments: _raw, ...rest } = call;
  return rest;
}

function describeCall(call: ReplayCall): string {
  const args = call.arguments === undefined ? '' : ` ${JSON.stringify(call.arguments)}`;
  return `${call.name}${args} (step ${call.step}, ${call.decision}, ${call.outcome})`;
}

function listOf(names: readonly string[]): string {
  return names.length === 0 ? '(none)' : names.join(', ');
}
