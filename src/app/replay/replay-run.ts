import {
  ToolgateError,
  newId,
  type Message,
  type ModelAdapter,
  type ReplayDiff,
  type Run,
  type RunEvent,
  type RunSettings,
} from '../../core/index.ts';
import { RunEngine } from '../../orchestrator/run-engine.ts';
import { applyEvents, emptyConversation } from '../../orchestrator/state/run-state.ts';
import type { RunEnvironment, RunHooks } from '../../orchestrator/state/run-options.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { newRunFrom } from '../new-run.ts';
import type { Toolgate } from '../toolgate.ts';
import { decisionDiff } from './decision-diff.ts';
import { readAllEvents } from './load-runs.ts';
import type { RecordedRun } from './recorded-run.ts';
import { ReplayApprovals } from './replay-approvals.ts';
import { threadHistoryOf } from './replay-history.ts';
import { ReplayModel, type Divergence } from './replay-model.ts';
import { ReplayToolSource } from './replay-tool-source.ts';
import { saveReplay } from './save-replay.ts';

export interface ReplayRunOptions {
  /** The stored run and its whole log. */
  original: RecordedRun;
  /**
   * A Toolgate opened on the new configuration: its policy, parser settings (`parsing`, `textToolCalls`), strategy
   * and defaults, system prompt, hooks, and the tool sources the tools are listed from (never called, except reads
   * with `allowReads`). With `save`, its store is where the replay is stored: open it on the original's store.
   */
  toolgate: Toolgate;
  /** From the first divergence on, ask the configured model instead of ending the replay there. */
  liveModel?: boolean;
  /** Run reads (effect `read`) that have no recorded result for real. Writes never run. */
  allowReads?: boolean;
  /** Store the replay in `toolgate.store` as a new run (`metadata.replayOf`), with a replay_compared event. */
  save?: boolean;
  /**
   * The conversation before the run. Default: the run's own `settings.history`, else its thread's messages before it
   * as `toolgate.store` has them (see threadHistoryOf).
   */
  history?: readonly Message[];
  /** The system prompt the original was sent (not in the log): a different one is a divergence at once. */
  originalSystemPrompt?: string;
  /** Per-run settings over the new configuration's (e.g. the original's strategy: `{ strategy: 'plan' }`). */
  settings?: Partial<Omit<RunSettings, 'history' | 'clientTools' | 'gateway'>>;
  signal?: AbortSignal;
}

export interface ReplayResult {
  diff: ReplayDiff;
  /** The replay as it was driven (in a store of its own). */
  replay: RecordedRun;
  /** With `save`: the replay as stored in `toolgate.store`, replay_compared included. */
  saved?: RecordedRun;
}

/** A replay that keeps asking for people would never end: it is cut after this many decisions. */
const MAX_DECISIONS = 200;

/**
 * Drives a stored run again under a new configuration, without side effects: the recorded model turns are fed back
 * (ReplayModel), tools answer with recorded results or "would run" (ReplayToolSource), approvals are decided as the
 * original decided them (ReplayApprovals). The replay runs in a store of its own; the original is never written.
 * Resolves with the decision diff and the replay.
 */
export async function replayRun(options: ReplayRunOptions): Promise<ReplayResult> {
  const { original, toolgate } = options;
  const run = original.run;
  if (run.settings?.gateway !== undefined)
    throw new ToolgateError('usage', `run ${run.id} is a gateway session's run: no model drove it, so nothing replays`);
  if (!original.events.some((e) => e.type === 'run_started'))
    throw new ToolgateError('usage', `run ${run.id} never started (its log has no run_started): nothing to replay`);
  const history = options.history ?? run.settings?.history ?? (await threadHistory(original, toolgate));
  const live = options.liveModel === true ? await toolgate.model(toolgate.settings.model ?? run.model) : undefined;
  const model = new ReplayModel({
    id: run.model,
    events: original.events,
    ...(live === undefined ? {} : { live }),
    ...(options.originalSystemPrompt === undefined ? {} : { originalSystemPrompt: options.originalSystemPrompt }),
  });
  const tools = new ReplayToolSource({
    tools: toolgate.tools,
    events: original.events,
    policy: toolgate.policy,
    allowReads: options.allowReads === true,
    redact: toolgate.settings.redact,
  });
  const environment: RunEnvironment = {
    model,
    tools,
    policy: toolgate.policy,
    validator: toolgate.validator,
    hooks: callHooks(toolgate.hooks),
    systemPrompt: toolgate.settings.systemPrompt,
    history,
    redact: toolgate.settings.redact,
    toolTimeoutMs: toolgate.settings.toolTimeoutMs,
    formats: await toolgate.formats.forModel(run.model),
  };
  const init = await replayInit(options, model);
  const store = new MemoryRunStore();
  const engine = new RunEngine({
    store,
    owner: newId('replay'),
    environment: () => Promise.resolve(environment),
    fallbackSettings: init.settings,
  });
  const replayed = await drive({ engine, init, original: original.events, signal: options.signal });
  const events = await readAllEvents(store, replayed.id);
  const divergence = model.divergence;
  const diff = decisionDiff({
    original,
    replay: { run: replayed, events },
    outcomeOf: (id) => tools.outcomeOf(id),
    model: model.answeredLive ? 'live' : 'recorded',
    ...(divergence === undefined ? {} : { divergedAtStep: stepOf(divergence, events) }),
  });
  const replay = { run: replayed, events };
  if (options.save !== true) return { diff, replay };
  const saved = await saveReplay({ store: toolgate.store, replay, diff });
  return { diff, replay, saved };
}

/** What the replay run is created with: the original's request under the new configuration's settings. */
async function replayInit(options: ReplayRunOptions, model: ModelAdapter): ReturnType<typeof newRunFrom> {
  const { run } = options.original;
  const clientTools = run.settings?.clientTools;
  const init = await newRunFrom({
    request: {
      input: run.input,
      model: run.model,
      ...(run.tenantId === undefined ? {} : { tenantId: run.tenantId }),
      ...(run.userId === undefined ? {} : { userId: run.userId }),
      ...(run.settings?.roles === undefined ? {} : { roles: run.settings.roles }),
      ...(run.dryRun === true ? { dryRun: true } : {}),
      ...(run.context === undefined ? {} : { context: run.context }),
      ...(clientTools === undefined ? {} : { clientTools }),
      metadata: { replayOf: run.id, replay: true },
    },
    settings: options.toolgate.settings,
    cwd: process.cwd(),
    // The model is the recorded one: nothing of the configured one is needed to create the run.
    model: () => Promise.resolve(model),
  });
  return { ...init, settings: { ...init.settings, ...options.settings } };
}

async function drive(options: {
  engine: RunEngine;
  init: Awaited<ReturnType<typeof newRunFrom>>;
  original: readonly RunEvent[];
  signal: AbortSignal | undefined;
}): Promise<Run> {
  const { engine, signal } = options;
  const approvals = new ReplayApprovals(options.original);
  const started = await engine.startClaimed(options.init);
  const drive = { signal, ...(started.lease === undefined ? {} : { lease: started.lease, run: started.run }) };
  let run = await engine.drive(started.run.id, drive);
  for (let decisions = 0; ; decisions++) {
    if (run.status === 'waiting_approval' && run.pendingApproval !== undefined && decisions < MAX_DECISIONS) {
      await engine.input(run.id, approvals.decide(run.pendingApproval));
      run = await engine.drive(run.id, { signal });
      continue;
    }
    if (run.status === 'waiting_approval' || run.status === 'escalated')
      return engine.cancel(run.id, { reason: `replay ended: the run waits for a person (${run.status})` });
    return run;
  }
}

/** The replay's step of its n-th model call: the step it was recorded as, or the one after the last. */
function stepOf(divergence: Divergence, events: readonly RunEvent[]): number {
  const steps = events.flatMap((e) => (e.type === 'assistant_message' ? [e.data.step] : []));
  return steps[divergence.call] ?? Math.max(0, ...steps) + 1;
}

async function threadHistory(original: RecordedRun, toolgate: Toolgate): Promise<Message[]> {
  if (original.run.threadId === undefined) return [];
  const own = applyEvents(emptyConversation(), original.events).messages.length + 1;
  return threadHistoryOf({ run: original.run, store: toolgate.store, ownMessages: own });
}

/** The hooks that take part in a call's decision and result; a replay is not a run's life (no onRunStart/onRunEnd). */
function callHooks(hooks: RunHooks | undefined): RunHooks | undefined {
  if (hooks === undefined) return undefined;
  const { beforeToolCall, afterToolCall } = hooks;
  return {
    ...(beforeToolCall === undefined ? {} : { beforeToolCall }),
    ...(afterToolCall === undefined ? {} : { afterToolCall }),
  };
}
