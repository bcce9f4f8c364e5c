import { ToolgateError, draft, isJsonObject, type JsonValue, type RunEventDataMap } from '../../core/index.ts';
import type { StrategyContext, StrategyOutcome } from './strategy.ts';

type Trigger = RunEventDataMap['reflection']['trigger'];
type Verdict = RunEventDataMap['reflection']['verdict'];

const VERDICTS: readonly Verdict[] = ['continue', 'replan', 'give_up', 'escalate'];

const WHAT_HAPPENED: Record<Trigger, string> = {
  tool_failure: 'a tool call failed',
  empty_result: 'the tools returned nothing',
  guard: 'the runtime guard saw a warning sign (tools failing or too slow)',
};

/** The critique request: the goal, what went wrong, and the four verdicts. */
export function reflectionPrompt(goal: string, trigger: Trigger): string {
  return [
    `Stop and reflect before going on: ${WHAT_HAPPENED[trigger]}.`,
    `The goal: ${goal}`,
    'Compare what the tools returned so far with the goal. Then reply with only a JSON object:',
    '{"verdict": "continue" | "replan" | "give_up" | "escalate", "reason": "<one or two sentences>", ' +
      '"confidence": <how sure you are of the verdict, from 0 to 1>}',
    '- continue: the approach is right; go on (for example, call the tool again with corrected arguments).',
    '- replan: the approach is wrong; make a new plan from what is known now.',
    '- give_up: the goal cannot be reached with these tools; the reason says why.',
    '- escalate: a person must decide or help before anything else happens.',
  ].join('\n');
}

/**
 * The verdict in a reply: the JSON object's, else the first verdict word in the text; undefined when there is none.
 * With the confidence the JSON gave (a number or a numeric string, clamped to 0..1).
 */
export function readVerdict(
  reply: JsonValue | undefined,
  text: string,
): { verdict: Verdict; reason: string; confidence?: number } | undefined {
  const json = isJsonObject(reply) ? reply : undefined;
  const raw = json?.['verdict'] ?? json?.['decision'];
  const reasonOf = (fallback: string): string => {
    const reason = json?.['reason'];
    return typeof reason === 'string' && reason.trim() !== '' ? reason.trim().slice(0, 2000) : fallback;
  };
  const confidence = confidenceOf(json?.['confidence']);
  const sure = confidence === undefined ? {} : { confidence };
  if (typeof raw === 'string') {
    const verdict = normalise(raw);
    if (verdict !== undefined) return { verdict, reason: reasonOf(`the model chose ${verdict}`), ...sure };
  }
  const word = /\b(continue|re-?plan|give[ _-]?up|escalate)\b/i.exec(text)?.[1];
  const verdict = word === undefined ? undefined : normalise(word);
  if (verdict === undefined) return undefined;
  return { verdict, reason: reasonOf(text.trim().slice(0, 500)), ...sure };
}

/** A confidence as models write it: 0.8, "0.8", or a percentage ("80%", 80); clamped to 0..1. */
function confidenceOf(raw: JsonValue | undefined): number | undefined {
  const text = typeof raw === 'string' ? raw.trim() : undefined;
  const n = typeof raw === 'number' ? raw : text === undefined || text === '' ? NaN : Number(text.replace(/%$/, ''));
  if (!Number.isFinite(n)) return undefined;
  const share = (text?.endsWith('%') ?? false) || n > 1 ? n / 100 : n;
  return Math.min(1, Math.max(0, Math.round(share * 1000) / 1000));
}

function normalise(word: string): Verdict | undefined {
  const w = word.toLowerCase().replace(/[\s-]+/g, '_');
  const mapped = w === 're_plan' ? 'replan' : w === 'giveup' ? 'give_up' : w;
  return VERDICTS.find((verdict) => verdict === mapped);
}

/**
 * Asks the model to critique what happened against the goal and records its
 * verdict (`reflection`), then follows it: `continue` and `replan` go on
 * (the caller makes the new plan), `give_up` ends the run failed with the
 * reason, `escalate` makes the run wait for a person (a message resumes it).
 * Returns the outcome when the run stops here.
 */
export async function reflect(ctx: StrategyContext, trigger: Trigger): Promise<StrategyOutcome | undefined> {
  await ctx.record([], { to: 'reflecting', reason: WHAT_HAPPENED[trigger] });
  const reply = await ctx.sideCall({
    purpose: 'reflect',
    messages: [...ctx.prefix, ...ctx.state.messages, { role: 'user', content: reflectionPrompt(ctx.input, trigger) }],
  });
  const read = readVerdict(reply.json, reply.answer);
  const verdict = read?.verdict ?? 'continue';
  const reason = read?.reason ?? 'the reflection could not be read; going on';
  const confidence = read?.confidence;
  const event = draft('reflection', {
    step: reply.step,
    trigger,
    verdict,
    reason,
    ...(read === undefined ? { unreadable: true } : {}),
    ...(confidence === undefined ? {} : { confidence }),
  });
  // Recorded with the verdict, in the same append: how sure the critique was is a signal of the step.
  const events =
    confidence === undefined
      ? [event]
      : [event, draft('step_signal', { step: reply.step, verdictConfidence: confidence })];
  switch (verdict) {
    case 'escalate':
      await ctx.record(events, { to: 'escalated', reason: `escalated: ${reason}` });
      return { kind: 'waiting' };
    case 'give_up':
      await ctx.record(events);
      throw new ToolgateError('gave_up', `the model gave up after reflecting: ${reason}`);
    case 'replan':
    case 'continue':
      // The caller goes on: a new plan (replan) or its next step (continue), with the status that goes with it.
      await ctx.record(events);
      return undefined;
  }
}

/**
 * The engine's checkpoint as a strategy acts on it: the outcome when the run
 * stops here (paused, or ended by the guard), `reflected` after the guard's
 * reflection on failures (its verdict is in the state), else `go`.
 */
export async function safePoint(ctx: StrategyContext): Promise<StrategyOutcome | 'reflected' | 'go'> {
  const cp = await ctx.checkpoint();
  if (cp.kind === 'pause') return { kind: 'paused' };
  if (cp.kind === 'end') return cp.outcome;
  if (cp.kind === 'reflect') return (await reflect(ctx, 'guard')) ?? 'reflected';
  return 'go';
}
