import {
  DEFAULT_MAX_REPLANS,
  ToolgateError,
  draft,
  escapeRegExp,
  newId,
  type JsonObject,
  type Message,
  type PlanEventData,
  type PlanStep,
} from '../../core/index.ts';
import type { PlanState } from '../conversation-state.ts';
import { PLAN_FORMAT, readPlan, type DraftStep } from './plan-shape.ts';
import { safePoint } from './reflection.ts';
import type { FinishOptions, Strategy, StrategyContext, StrategyOutcome } from './strategy.ts';


/**
 * Plan-and-Solve: the model writes the whole plan first; the gate checks
 * every step before any runs (plan_created); a plan that needs approval is
 * approved once (or per step); steps run in order, reads next to each other
 * together; a failed step leads to a new plan from the evidence so far
 * (plan_revised, bounded); after the steps the model answers, or plans the
 * next steps the same way. Every pass starts from the log.
 */
export const plan: Strategy = {
  name: 'plan',
  startStatus: 'planning',
  run: (ctx) => planLoop(ctx),
};

export async function planLoop(ctx: StrategyContext): Promise<StrategyOutcome> {
  const maxReplans = ctx.settings.plan?.maxReplans ?? DEFAULT_MAX_REPLANS;
  for (;;) {
    const state = ctx.state;
    if (state.turn !== undefined) {
      const outcome = state.plan !== undefined && state.turn.step === state.plan.step ? await runPlanSteps(ctx) : await openTurn(ctx);
      if (outcome !== undefined) return outcome;
      continue;
    }
    const point = await safePoint(ctx);
    if (point === 'reflected') continue;
    if (point !== 'go') return point;
    const current = state.plan;
    if (current === undefined) {
      await makePlan(ctx);
      continue;
    }
    if (state.pendingReplan !== undefined) {
      await makePlan(ctx, { reason: state.pendingReplan, revise: true });
      continue;
    }
    if (current.status === 'failed' && state.replans < maxReplans) {
      await makePlan(ctx, { reason: failureOf(current), revise: true });
      continue;
    }
    // A plan with no tool step and an answer: that answer is the run's.
    if (current.callIds.length === 0 && current.finalAnswer !== undefined) return { kind: 'completed', output: current.finalAnswer };
    // The steps have run (or cannot be re-planned any more): the model answers, or plans what is still missing.
    const next = await makePlan(ctx, { after: current, exhausted: current.status === 'failed' });
    if (next !== undefined) return next;
  }
}

/** A turn that is not the plan's (only after a strategy switched to planning midway): its calls run as usual. */
async function openTurn(ctx: StrategyContext): Promise<StrategyOutcome | undefined> {
  const outcome = await ctx.finishTurn();
  if (outcome.kind === 'waiting') return { kind: 'waiting' };
  if (outcome.kind === 'direct') return { kind: 'completed', output: outcome.output };
  return undefined;
}

/**
 * The plan's steps that have no result yet, in order: reads next to each
 * other together, each write alone; after a failed step the rest are skipped.
 * Returns the outcome when the run stops (waits, or a return-direct tool answered).
 */
export async function runPlanSteps(ctx: StrategyContext): Promise<StrategyOutcome | undefined> {
  const current = ctx.state.plan as PlanState;
  const turn = ctx.state.turn;
  if (turn === undefined) return undefined;
  let approval: FinishOptions['approval'];
  const needs = current.steps.filter((s) => s.decision === 'approval_required' && s.toolCallId !== undefined).map((s) => s.toolCallId as string);
  if (current.approval === 'plan' && needs.length > 0) {
    const decision = ctx.state.decisions.get(current.planId);
    if (decision === undefined) {
      if (!ctx.state.asked.has(current.planId)) await ctx.askPlanApproval({ planId: current.planId, step: current.step, arguments: planArguments(current) });
      return { kind: 'waiting' };
    }
    if (decision.decision === 'reject') {
      const why = `the plan was rejected${decision.userId === undefined ? '' : ` by ${decision.userId}`}: ${decision.reason ?? 'no reason given'}`;
      await ctx.skip(current.callIds, 'rejected', why);
      return undefined;
    }
    approval = { decision, calls: new Set(needs) };
  }
  await ctx.record([], { to: 'executing', reason: `running plan ${current.planId}` });
  for (const batch of batches(current)) {
    const open = batch.filter((id) => !turn.results.has(id));
    if (open.length === 0) continue;
    if (ctx.state.plan?.status === 'failed') {
      await ctx.skip(current.callIds, 'skipped', 'not run: an earlier step of the plan failed');
      return undefined;
    }
    const point = await safePoint(ctx);
    if (point !== 'go' && point !== 'reflected') return point;
    if (point === 'reflected') {
      if (ctx.state.pendingReplan !== undefined) {
        // The critique wants another approach: the rest of this plan does not run.
        await ctx.skip(current.callIds, 'skipped', `not run: re-planning (${ctx.state.pendingReplan})`);
        return undefined;
      }
      await ctx.record([], { to: 'executing', reason: `running plan ${current.planId}` });
    }
    const outcome = await ctx.finishTurn({ only: open, ...(approval === undefined ? {} : { approval }) });
    if (outcome.kind === 'waiting') return { kind: 'waiting' };
    if (outcome.kind === 'direct') return { kind: 'completed', output: outcome.output };
  }
  return undefined;
}

/** The call ids in running order: consecutive reads together, each write alone. */
export function batches(current: Pick<PlanState, 'steps'>): string[][] {
  const out: string[][] = [];
  let reads: string[] = [];
  for (const step of current.steps) {
    if (step.kind !== 'tool' || step.toolCallId === undefined) continue;
    if (step.effect === 'read') {
      reads.push(step.toolCallId);
      continue;
    }
    if (reads.length > 0) out.push(reads);
    reads = [];
    out.push([step.toolCallId]);
  }
  if (reads.length > 0) out.push(reads);
  return out;
}

interface PlanRequest {
  /** Why a new plan is needed (a failed step, a rejected plan, a reflection). */
  reason?: string;
  /** The new plan replaces a failed one (plan_revised). */
  revise?: boolean;
  /** The plan that has run: the model answers, or plans the next steps. */
  after?: PlanState;
  /** No more re-plans: the model answers from what it has. */
  exhausted?: boolean;
}

/**
 * Asks the model for a plan and has the gate check every step; a plan that
 * cannot be read, or with a step the gate refuses (unknown tool, invalid
 * arguments, denied), goes back to the model with the reasons, up to
 * parseRetries times. Records plan_created or plan_revised; returns the
 * run's outcome when the reply is a final answer after steps have run.
 */
export async function makePlan(ctx: StrategyContext, request: PlanRequest = {}): Promise<StrategyOutcome | undefined> {
  const answering = request.after !== undefined;
  await ctx.record([], answering ? { to: 'monitoring', reason: 'the steps have run: the model answers or plans what is missing' } : { to: 'planning', reason: request.reason === undefined ? 'the model writes a plan' : `re-planning: ${request.reason}` });
  const maxAttempts = ctx.settings.parseRetries + 1;
  const prompt: Message = { role: 'user', content: planPrompt(ctx, request) };
  let retry: Message[] = [];
  let lastError = '';
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    if (attempt > 1) {
      const point = await safePoint(ctx);
      if (point !== 'go' && point !== 'reflected') return point;
    }
    const reply = await ctx.sideCall({ purpose: 'plan', offerTools: request.exhausted !== true, messages: [...ctx.prefix, ...ctx.state.messages, prompt, ...retry] });
    const read = readPlan(reply);
    let error: string | undefined;
    if (!read.ok) error = read.error;
    else if (!answering && read.prose === true && namesATool(read.finalAnswer ?? '', ctx.toolDefinitions.map((t) => t.name))) {
      // Asked for a plan, the model described one in words: that is not an answer to the user.
      error = 'the plan is written in prose; it must be one JSON object, with each tool call as a step';
    } else if (request.exhausted === true && read.steps.some((s) => s.kind === 'tool')) error = 'no more tools can be used in this run: reply with {"final_answer": "…"} from what you know';
    else {
      const checked = checkSteps(ctx, read.steps, reply.step);
      if (typeof checked === 'string') error = checked;
      else {
        const hasTools = checked.some((s) => s.kind === 'tool');
        if (answering && !hasTools) return { kind: 'completed', output: read.finalAnswer ?? reply.answer };
        await recordPlan(ctx, reply.step, checked, read.finalAnswer, request);
        return undefined;
      }
    }
    lastError = error;
    const feedback = `The plan cannot be used: ${error.replace(/[.\s]+$/, '')}. Write the whole plan again as one JSON object: ${PLAN_FORMAT}`;
    retry = [
      { role: 'assistant', content: reply.text === '' ? JSON.stringify(reply.calls) : reply.text },
      { role: 'user', content: feedback },
    ];
    await ctx.record([draft('parse_retry', { step: reply.step, attempt, maxAttempts, diagnostics: [{ code: 'plan_invalid', message: error }], feedback })]);
  }
  throw new ToolgateError('unparseable_tool_call', `the model did not write a usable plan in ${maxAttempts} attempt${maxAttempts === 1 ? '' : 's'}: ${lastError}`);
}

/** Every tool step through the gate (without running it): the plan's steps with verdicts, or what is wrong. */
function checkSteps(ctx: StrategyContext, drafts: readonly DraftStep[], step: number): PlanStep[] | string {
  const problems: string[] = [];
  const steps = drafts.map((d, index): PlanStep => {
    if (d.kind === 'reasoning') return { index, kind: 'reasoning', text: d.text };
    const toolCallId = newId('call');
    const preview = ctx.preview({ id: toolCallId, name: d.name, arguments: d.arguments }, step);
    if (preview.decision === 'invalid' || preview.decision === 'denied' || preview.decision === 'not_found') {
      problems.push(`step ${index + 1} (${d.name}): ${preview.message ?? preview.decision}`);
    }
    return {
      index,
      kind: 'tool',
      toolCallId,
      name: d.name,
      arguments: preview.arguments ?? parsedArguments(d.arguments),
      raw: d.arguments,
      ...(d.text === undefined ? {} : { text: d.text }),
      ...(preview.effect === undefined ? {} : { effect: preview.effect }),
      ...(preview.decision === 'not_found' ? {} : { decision: preview.decision }),
    };
  });
  return problems.length > 0 ? problems.join('; ') : steps;
}

async function recordPlan(ctx: StrategyContext, step: number, steps: PlanStep[], finalAnswer: string | undefined, request: PlanRequest): Promise<void> {
  const needsApproval = steps.some((s) => s.decision === 'approval_required');
  const data: PlanEventData = {
    planId: newId('plan'),
    step,
    steps,
    writes: steps.filter((s) => s.effect === 'write').map((s) => s.index),
    approval: needsApproval ? (ctx.settings.plan?.approval ?? 'plan') : 'none',
    ...(finalAnswer === undefined || steps.some((s) => s.kind === 'tool') ? {} : { finalAnswer }),
  };
  if (request.revise === true) {
    await ctx.record([draft('plan_revised', { ...data, reason: request.reason ?? 'the plan failed', revision: ctx.state.replans + 1 })], { to: 'planning' });
  } else {
    await ctx.record([draft('plan_created', data)], { to: 'planning' });
  }
}

function planPrompt(ctx: StrategyContext, request: PlanRequest): string {
  const tools = ctx.toolDefinitions.map((t) => `- ${t.name}${ctx.writeTools.has(t.name) ? ' (changes state)' : ''}: ${t.description ?? ''}\n  arguments: ${JSON.stringify(t.parameters)}`).join('\n');
  const lines: string[] = [];
  if (request.after !== undefined && request.exhausted === true) {
    lines.push('The plan failed and cannot be re-planned any more. Answer the request from the results above; say what could not be done.', 'Reply with only: {"final_answer": "<your answer for the user>"}');
    return lines.join('\n');
  }
  if (request.after !== undefined) {
    lines.push(
      'The plan has run; its results are above.',
      'If they answer the request, reply with only {"final_answer": "<your answer for the user>"}.',
      'If more steps are needed, reply with the next steps in the same JSON format.',
    );
  } else {
    lines.push(
      request.reason === undefined ? 'Before doing anything, write a plan for the request.' : `The last plan did not work: ${request.reason}. Write a new plan from what is known now.`,
      `Reply with only a JSON object: ${PLAN_FORMAT}`,
      'Steps run in order; reads next to each other run at the same time. Arguments cannot refer to results of earlier steps: plan only the steps you can write now; you will see their results and can plan more.',
      'If no tool is needed, reply with only {"final_answer": "<your answer>"}.',
    );
  }
  // Native mode offers the tools with the request; prompted mode has only this text.
  if (ctx.mode === 'prompted') lines.push(`Tools:\n${tools === '' ? '(none)' : tools}`);
  else if (ctx.writeTools.size > 0) lines.push(`Tools that change state: ${[...ctx.writeTools].join(', ')}.`);
  return lines.join('\n');
}

/** What a person approving the plan sees: its steps, in order. */
function planArguments(current: PlanState): JsonObject {
  return {
    planId: current.planId,
    steps: current.steps.map((s) =>
      s.kind === 'tool'
        ? { step: s.index + 1, tool: s.name ?? '', arguments: s.arguments ?? {}, effect: s.effect ?? 'write', ...(s.decision === 'approval_required' ? { needsApproval: true } : {}) }
        : { step: s.index + 1, thought: s.text ?? '' },
    ),
  };
}

/** Why the plan failed: its failed steps' errors, for the re-planning prompt. */
function failureOf(current: PlanState): string {
  return current.failures.length === 0 ? 'a step failed' : current.failures.slice(0, 5).join('; ');
}

/** Whether a text names one of the tools (as a word): prose that does is a plan in words, not an answer. */
function namesATool(text: string, names: readonly string[]): boolean {
  return names.some((name) => new RegExp(`(?<![\\w-])${escapeRegExp(name)}(?![\\w-])`).test(text));
}

function parsedArguments(text: string): JsonObject {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : {};
  } catch {
    return {};
  }
}
