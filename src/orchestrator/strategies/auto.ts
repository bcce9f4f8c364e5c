import { INTENT_OF_ROUTE, draft, isJsonObject } from '../../core/index.ts';
import { planLoop } from './plan.ts';
import { reactLoop } from './react.ts';
import { safePoint } from './reflection.ts';
import { DOES, withEvidence } from './route-evidence.ts';
import { routeBySignals, routeSignals, type Route } from './route-signals.ts';
import { toolLine } from './tool-line.ts';
import type { Strategy, StrategyContext, StrategyOutcome } from './strategy.ts';

const ROUTES: readonly Route[] = ['answer', 'react', 'plan'];

/**
 * The intent router: per run, a plain answer (no tools offered), ReAct for a
 * lookup or two, or a plan for multi-step or write-heavy requests. Cheap
 * signals decide first; a short model call only when they do not. The
 * choice is recorded (intent_routed), so a resumed run keeps it.
 */
export const auto: Strategy = {
  name: 'auto',
  async run(ctx) {
    if (ctx.state.route === undefined) await route(ctx);
    switch (ctx.state.route) {
      case 'answer':
        return answer(ctx);
      case 'plan':
        return planLoop(ctx);
      case 'reflect':
        return reactLoop(ctx, { reflect: true });
      default:
        return reactLoop(ctx, { reflect: false });
    }
  },
};

async function route(ctx: StrategyContext): Promise<void> {
  const names = ctx.toolDefinitions.map((t) => t.name);
  const signals = routeSignals(ctx.input, names);
  const bySignals = routeBySignals(signals, { tools: names.length, writeTools: ctx.writeTools.size, input: ctx.input });
  if (bySignals !== undefined) {
    await ctx.record([
      draft(
        'intent_routed',
        withEvidence(ctx, { route: bySignals.route, why: bySignals.reason, by: 'signals', signals }),
      ),
    ]);
    return;
  }
  const cp = await ctx.checkpoint();
  if (cp.kind !== 'go') {
    await ctx.record([
      draft('intent_routed', {
        route: 'react',
        reason: `${DOES.react}, without asking the model: the signals did not settle it`,
        intent: INTENT_OF_ROUTE.react,
        by: 'signals',
        signals,
      }),
    ]);
    return;
  }
  const reply = await ctx.sideCall({
    purpose: 'route',
    messages: [
      {
        role: 'system',
        content: [
          'You route requests for an assistant with tools. ' +
            'Reply with only a JSON object: {"route": "answer" | "react" | "plan", "reason": "<a few words>"}.',
          '- answer: no tool is needed (general knowledge, small talk, a question about the conversation).',
          '- react: one or two lookups with the tools.',
          '- plan: several steps, or anything that changes state (orders, writes, deletions).',
          `Tools: ${ctx.toolDefinitions.map((t) => toolLine(t, ctx.writeTools)).join('; ')}`,
        ].join('\n'),
      },
      { role: 'user', content: ctx.input },
    ],
  });
  const json = isJsonObject(reply.json) ? reply.json : undefined;
  const raw = json?.['route'];
  const chosen = typeof raw === 'string' ? ROUTES.find((r) => r === raw.trim().toLowerCase()) : undefined;
  if (chosen === undefined) {
    await ctx.record([
      draft(
        'intent_routed',
        withEvidence(ctx, {
          route: 'react',
          why: 'the default, as the router\u2019s reply could not be read',
          by: 'model',
          signals,
        }),
      ),
    ]);
    return;
  }
  const given = json?.['reason'];
  const why =
    typeof given === 'string' && given.trim() !== ''
      ? `the model chose it (${given.trim().slice(0, 500)})`
      : 'the model chose it';
  await ctx.record([draft('intent_routed', withEvidence(ctx, { route: chosen, why, by: 'model', signals }))]);
}

/** A plain answer: one model turn with no tools offered. */
async function answer(ctx: StrategyContext): Promise<StrategyOutcome> {
  const point = await safePoint(ctx);
  if (point !== 'go' && point !== 'reflected') return point;
  const turn = await ctx.modelTurn({ tools: false });
  return { kind: 'completed', output: turn.content };
}
