import {
  ToolgateError,
  draft,
  escapeRegExp,
  newId,
  type Message,
  type ParsedToolCall,
  type PlanEventData,
  type PlanStep,
  type RawToolCall,
} from '../../core/index.ts';
import { PLAN_FORMAT, readPlan, type DraftStep } from './plan-shape.ts';
import { safePoint } from './reflection.ts';
import { toolLine } from './tool-line.ts';
import type { PlanState, StrategyContext, StrategyOutcome } from './strategy.ts';

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
  await ctx.record(
    [],
    answering
      ? { to: 'monitoring', reason: 'the steps have run: the model answers or plans what is missing' }
      : {
          to: 'planning',
          reason: request.reason === undefined ? 'the model writes a plan' : `re-planning: ${request.reason}`,
        },
  );
  const maxAttempts = ctx.settings.parseRetries + 1;
  const prompt: Message = { role: 'user', content: planPrompt(ctx, request) };
  let retry: Message[] = [];
  let lastError = '';
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    if (attempt > 1) {
      const point = await safePoint(ctx);
      if (point !== 'go' && point !== 'reflected') return point;
    }
    const reply = await ctx.sideCall({
      purpose: 'plan',
      offerTools: request.exhausted !== true,
      messages: [...ctx.prefix, ...ctx.state.messages, prompt, ...retry],
    });
    const read = readPlan(reply);
    let error: string | undefined;
    if (!read.ok) error = read.error;
    else if (
      !answering &&
      read.prose === true &&
      namesATool(
        read.finalAnswer ?? '',
        ctx.toolDefinitions.map((t) => t.name),
      )
    ) {
      // Asked for a plan, the model described one in words: that is not an answer to the user.
      error = 'the plan is written in prose; it must be one JSON object, with each tool call as a step';
    } else if (request.exhausted === true && read.steps.some((s) => s.kind === 'tool'))
      error = 'no more tools can be used in this run: reply with {"final_answer": "…"} from what you know';
    else {
      const checked = checkSteps(ctx, read.steps, reply.step);
      if (typeof checked === 'string') error = checked;
      else {
        const hasTools = checked.some((s) => s.kind === 'tool');
        if (answering && !hasTools) return { kind: 'completed', output: read.finalAnswer ?? reply.answer };
        await recordPlan(ctx, { step: reply.step, steps: checked, finalAnswer: read.finalAnswer, request });
        return undefined;
      }
    }
    lastError = error;
    const feedback =
      `The plan cannot be used: ${error.replace(/[.\s]+$/, '')}. ` +
      `Write the whole plan again as one JSON object: ${PLAN_FORMAT}`;
    retry = [
      { role: 'assistant', content: reply.text === '' ? writtenCalls(reply.calls) : reply.text },
      { role: 'user', content: feedback },
    ];
    await ctx.record([
      draft('parse_retry', {
        step: reply.step,
        attempt,
        maxAttempts,
        diagnostics: [{ code: 'plan_invalid', message: error }],
        feedback,
      }),
    ]);
  }
  throw new ToolgateError(
    'unparseable_tool_call',
    `the model did not write a usable plan in ${maxAttempts} attempt${maxAttempts === 1 ? '' : 's'}: ${lastError}`,
  );
}

/** Every tool step through the gate (without running it): the plan's steps with verdicts, or what is wrong. */
function checkSteps(ctx: StrategyContext, drafts: readonly DraftStep[], step: number): PlanStep[] | string {
  const problems: string[] = [];
  const steps = drafts.map((d, index): PlanStep => {
    if (d.kind === 'reasoning') return { index, kind: 'reasoning', text: d.text };
    const toolCallId = newId('call');
    const preview = ctx.preview(stepCall(d, toolCallId), step);
    if (preview.decision === 'invalid' || preview.decision === 'denied' || preview.decision === 'not_found') {
      problems.push(`step ${index + 1} (${d.name}): ${preview.message ?? preview.decision}`);
    }
    return {
      index,
      kind: 'tool',
      toolCallId,
      name: d.name,
      arguments: preview.arguments ?? ('input' in d ? d.input : {}),
      // The event keeps the arguments as text: as the model wrote them, else written here once.
      raw: 'input' in d ? JSON.stringify(d.input) : d.raw,
      ...(d.text === undefined ? {} : { text: d.text }),
      ...(preview.effect === undefined ? {} : { effect: preview.effect }),
      ...(preview.decision === 'not_found' ? {} : { decision: preview.decision }),
    };
  });
  return problems.length > 0 ? problems.join('; ') : steps;
}

interface PlanRecord {
  /** The step of the side call that wrote the plan. */
  step: number;
  steps: PlanStep[];
  finalAnswer: string | undefined;
  request: PlanRequest;
}

async function recordPlan(ctx: StrategyContext, plan: PlanRecord): Promise<void> {
  const { step, steps, finalAnswer, request } = plan;
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
    await ctx.record(
      [
        draft('plan_revised', {
          ...data,
          reason: request.reason ?? 'the plan failed',
          revision: ctx.state.replans + 1,
        }),
      ],
      { to: 'planning' },
    );
  } else {
    await ctx.record([draft('plan_created', data)], { to: 'planning' });
  }
}

function planPrompt(ctx: StrategyContext, request: PlanRequest): string {
  const tools = ctx.toolDefinitions
    .map((t) => `- ${toolLine(t, ctx.writeTools)}\n  arguments: ${JSON.stringify(t.parameters)}`)
    .join('\n');
  const lines: string[] = [];
  if (request.after !== undefined && request.exhausted === true) {
    lines.push(
      'The plan failed and cannot be re-planned any more. ' +
        'Answer the request from the results above; say what could not be done.',
      'Reply with only: {"final_answer": "<your answer for the user>"}',
    );
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
      request.reason === undefined
        ? 'Before doing anything, write a plan for the request.'
        : `The last plan did not work: ${request.reason}. Write a new plan from what is known now.`,
      `Reply with only a JSON object: ${PLAN_FORMAT}`,
      'Steps run in order; reads next to each other run at the same time. ' +
        'Arguments cannot refer to results of earlier steps: plan only the steps you can write now; ' +
        'you will see their results and can plan more.',
      'If no tool is needed, reply with only {"final_answer": "<your answer>"}.',
    );
  }
  // Native mode offers the tools with the request; prompted mode has only this text.
  if (ctx.mode === 'prompted') lines.push(`Tools:\n${tools === '' ? '(none)' : tools}`);
  else if (ctx.writeTools.size > 0) lines.push(`Tools that change state: ${[...ctx.writeTools].join(', ')}.`);
  return lines.join('\n');
}

/** Whether a text names one of the tools (as a word): prose that does is a plan in words, not an answer. */
function namesATool(text: string, names: readonly string[]): boolean {
  return names.some((name) => new RegExp(`(?<![\\w-])${escapeRegExp(name)}(?![\\w-])`).test(text));
}

/**
 * A tool step as the gate checks it: read already, unreadable with why, or a string the model wrote, read when checked.
 */
function stepCall(d: Extract<DraftStep, { kind: 'tool' }>, id: string): ParsedToolCall | RawToolCall {
  if ('input' in d) return { id, name: d.name, input: d.input };
  return d.error === undefined
    ? { id, name: d.name, arguments: d.raw }
    : { id, name: d.name, raw: d.raw, error: d.error };
}

/** A reply that was only calls, shown back to the model as name and arguments text. */
function writtenCalls(calls: readonly ParsedToolCall[]): string {
  return JSON.stringify(
    calls.map((c) => ({ name: c.name, arguments: 'input' in c ? JSON.stringify(c.input) : c.raw })),
  );
}
