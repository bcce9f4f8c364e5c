import { canonicalJson, type RunEventDataMap } from '../../core/index.ts';
import { callKey, type ConversationState, type EvidenceState, type OpenTurn } from './run-state-types.ts';

type ToolResultData = RunEventDataMap['tool_result'];
export type StepSignal = RunEventDataMap['step_signal'];

/** Words and numbers of two characters or more, lower-cased: what counts as information in a result. */
const TOKEN = /[\p{L}\p{N}][\p{L}\p{N}_.-]*[\p{L}\p{N}]/gu;

/** What one result adds to the turn's evidence: its tokens, its call's key and fingerprint, a conflict. */
interface ResultEvidence {
  tokens: string[];
  key: string | undefined;
  fingerprint: string;
  conflict: NonNullable<StepSignal['conflicting']>[number] | undefined;
}

/** Reads a result of the open turn; nothing for a failure, a dry run or a person's `mark_done`. */
function readResult(evidence: EvidenceState, turn: OpenTurn, d: ToolResultData): ResultEvidence | undefined {
  // A dry run's placeholder and a person's `mark_done` say nothing about the world the tools see.
  if (!d.ok || d.dryRun === true || d.markedDone === true) return undefined;
  const tokens: string[] = [];
  for (const c of d.content) if (c.type === 'text') addTokens(tokens, c.text);
  if (d.structuredContent !== undefined) addTokens(tokens, JSON.stringify(d.structuredContent));
  const call = turn.calls.find((c) => c.id === d.toolCallId);
  const key = call === undefined ? undefined : callKey(call);
  const fingerprint = fingerprintOf(
    canonicalJson({
      content: d.content.map((c) => (c.type === 'text' ? c.text : canonicalJson(c))),
      structured: d.structuredContent ?? null,
    }),
  );
  const earlier = key === undefined ? undefined : evidence.lastByCall.get(key);
  const conflict =
    earlier !== undefined && earlier.fingerprint !== fingerprint
      ? { tool: d.name, toolCallId: d.toolCallId, earlierCallId: earlier.toolCallId }
      : undefined;
  return { tokens, key, fingerprint, conflict };
}

/** A result of the open turn, applied: its tokens, and whether it contradicts an earlier result of the call. */
export function noteResult(state: ConversationState, turn: OpenTurn, d: ToolResultData): void {
  const evidence = state.evidence;
  const read = readResult(evidence, turn, d);
  if (read === undefined) return;
  for (const token of read.tokens) evidence.turnTokens.add(token);
  if (read.conflict !== undefined) evidence.turnConflicts.push(read.conflict);
  if (read.key !== undefined)
    evidence.lastByCall.set(read.key, { fingerprint: read.fingerprint, toolCallId: d.toolCallId });
}

/**
 * The signals a result would record if it closed the open turn (the other calls all have results): so that the
 * step_signal goes in the same append as that result. Computed as the reducer will compute them, without changing
 * the state; undefined when the result does not close the turn.
 */
export function signalIfClosing(state: ConversationState, d: ToolResultData): StepSignal | undefined {
  const turn = state.turn;
  if (turn === undefined || turn.results.has(d.toolCallId)) return undefined;
  if (!turn.calls.some((c) => c.id === d.toolCallId)) return undefined;
  if (!turn.calls.every((c) => c.id === d.toolCallId || turn.results.has(c.id))) return undefined;
  const evidence = state.evidence;
  const read = readResult(evidence, turn, d);
  const tokens = new Set(evidence.turnTokens);
  for (const token of read?.tokens ?? []) tokens.add(token);
  const conflicts = read?.conflict === undefined ? evidence.turnConflicts : [...evidence.turnConflicts, read.conflict];
  const ok = (id: string): boolean => (id === d.toolCallId ? d.ok : turn.results.get(id)?.ok === true);
  return signalOf(state, { step: turn.step, tokens, conflicts, ok });
}

/**
 * The signals of a turn whose calls all have results: the share of its tokens no earlier result had (1 for the
 * first results, 0 for empty ones), the plan's tool steps that succeeded (a plan's turn), the conflicts it brought.
 * Recorded as `step_signal` with the result that closed the turn, else at the next safe point.
 */
export function turnSignals(state: ConversationState, turn: OpenTurn): StepSignal {
  const evidence = state.evidence;
  const signal = signalOf(state, {
    step: turn.step,
    tokens: evidence.turnTokens,
    conflicts: evidence.turnConflicts,
    ok: (id) => turn.results.get(id)?.ok === true,
  });
  for (const token of evidence.turnTokens) evidence.seen.add(token);
  evidence.turnTokens = new Set();
  evidence.turnConflicts = [];
  return signal;
}

function signalOf(
  state: ConversationState,
  turn: {
    step: number;
    tokens: ReadonlySet<string>;
    conflicts: NonNullable<StepSignal['conflicting']>;
    ok: (id: string) => boolean;
  },
): StepSignal {
  let fresh = 0;
  for (const token of turn.tokens) if (!state.evidence.seen.has(token)) fresh++;
  const total = turn.tokens.size;
  const plan = state.plan;
  const planCoverage =
    plan !== undefined && plan.step === turn.step && plan.callIds.length > 0
      ? plan.callIds.filter(turn.ok).length / plan.callIds.length
      : undefined;
  const conflicting = [...turn.conflicts];
  return {
    step: turn.step,
    evidenceGained: total === 0 ? 0 : round(fresh / total),
    ...(planCoverage === undefined ? {} : { planCoverage: round(planCoverage) }),
    ...(conflicting.length === 0 ? {} : { conflicts: conflicting.length, conflicting }),
  };
}

/** A step_signal in the log: the due signal is recorded; conflicts count towards guard.maxConflicts. */
export function applySignal(state: ConversationState, d: StepSignal): void {
  if (state.signalDue?.step === d.step) state.signalDue = undefined;
  state.conflictsSincePlan += d.conflicts ?? 0;
}

function addTokens(into: string[], text: string): void {
  for (const match of text.toLowerCase().matchAll(TOKEN)) into.push(match[0]);
}

/** A short fingerprint of a result (53-bit cyrb53): results are compared, not kept. */
function fingerprintOf(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
