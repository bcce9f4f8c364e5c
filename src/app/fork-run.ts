import {
  ToolgateError,
  describeError,
  draft,
  toErrorInfo,
  type EventDraft,
  type ForkRunRequest,
  type JsonObject,
  type NewRun,
  type Run,
  type RunEvent,
  type RunLease,
  type RunSettings,
} from '../core/index.ts';
import { checkForkPoint, forkPrefix } from '../orchestrator/state/fork-prefix.ts';
import { applyEvents, emptyConversation } from '../orchestrator/state/run-state.ts';
import type { Toolgate } from './toolgate.ts';

/** A fork ready to be created: the run, its log's first events (the copies, then run_forked). */
export interface PreparedFork {
  init: NewRun & { settings: RunSettings };
  events: EventDraft[];
}

/**
 * Checks a fork request against the original run and its log and says what the fork is: the original's input,
 * tenant, user and context, no thread (a fork does not continue the thread), `metadata.forkOf`; the original's stored
 * settings with the request's over them — the strategy and the model resolved as for a new run (an unknown strategy,
 * a model that cannot be made → the caller's error, before anything is written). The caller checks that the caller
 * may use a requested model. Nothing is written.
 */
export async function prepareFork(options: {
  toolgate: Pick<Toolgate, 'newRun' | 'store'>;
  original: Run;
  request: ForkRunRequest;
}): Promise<PreparedFork> {
  const { toolgate, original, request } = options;
  if (original.settings?.gateway !== undefined) {
    throw new ToolgateError(
      'usage',
      `run ${original.id} is a gateway session (an MCP client's calls): no model drives it, so it cannot be forked`,
    );
  }
  const log = await toolgate.store.readEvents(original.id);
  checkForkPoint(original.id, log, request.afterEventId);
  const wanted = request.settings ?? {};
  const stored = original.settings;
  const strategy = wanted.strategy ?? stored?.strategy;
  const fresh = await toolgate.newRun({
    input: original.input,
    model: wanted.model ?? original.model,
    ...(strategy === undefined ? {} : { strategy }),
    ...(wanted.maxSteps === undefined ? {} : { maxSteps: wanted.maxSteps }),
    ...(wanted.toolMode === undefined ? {} : { toolMode: wanted.toolMode }),
    ...(wanted.todo === undefined ? {} : { todo: wanted.todo }),
    ...(stored?.clientTools === undefined ? {} : { clientTools: stored?.clientTools }),
    ...(original.tenantId === undefined ? {} : { tenantId: original.tenantId }),
    ...(request.traceparent === undefined ? {} : { traceparent: request.traceparent }),
  });
  const settings = forkSettings({ stored, fresh: fresh.settings, wanted });
  const changed: JsonObject = {
    ...(wanted.strategy === undefined ? {} : { strategy: settings.strategy }),
    ...(wanted.maxSteps === undefined ? {} : { maxSteps: wanted.maxSteps }),
    ...(wanted.toolMode === undefined ? {} : { toolMode: wanted.toolMode }),
    ...(wanted.model === undefined ? {} : { model: fresh.model }),
    ...(wanted.dryRun === undefined ? {} : { dryRun: wanted.dryRun }),
    ...(wanted.todo === undefined ? {} : { todo: wanted.todo }),
  };
  // Where the original came from is its own story: the fork's is forkOf.
  const { replayOf: _replayOf, forkOf: _forkOf, ...metadata } = original.metadata ?? {};
  const init: NewRun & { settings: RunSettings } = {
    input: original.input,
    model: fresh.model,
    settings,
    metadata: { ...metadata, forkOf: { runId: original.id, afterEventId: request.afterEventId } },
    ...(original.tenantId === undefined ? {} : { tenantId: original.tenantId }),
    ...(original.userId === undefined ? {} : { userId: original.userId }),
    ...(original.context === undefined ? {} : { context: original.context }),
    ...((wanted.dryRun ?? original.dryRun) === true ? { dryRun: true } : {}),
  };
  const forked = draft('run_forked', {
    from: original.id,
    afterEventId: request.afterEventId,
    ...(Object.keys(changed).length === 0 ? {} : { settings: changed }),
  });
  return { init, events: [...forkPrefix(log, request.afterEventId), forked] };
}

/** The original's settings (or, for a run stored before settings were kept, the configuration's) with the request's. */
function forkSettings(options: {
  stored: RunSettings | undefined;
  fresh: RunSettings;
  wanted: NonNullable<ForkRunRequest['settings']>;
}): RunSettings {
  const { stored, fresh, wanted } = options;
  const settings: RunSettings = { ...(stored ?? fresh), strategy: fresh.strategy };
  if (wanted.maxSteps !== undefined) settings.maxSteps = wanted.maxSteps;
  if (wanted.toolMode !== undefined) settings.toolMode = wanted.toolMode;
  const todo = stored?.todo ?? fresh.todo;
  if (wanted.todo !== undefined && todo !== undefined) settings.todo = { ...todo, enabled: wanted.todo };
  // What the fork's model costs, and the trace of the request that made it: the fork's own.
  if (fresh.price === undefined) delete settings.price;
  else settings.price = fresh.price;
  if (fresh.traceparent === undefined) delete settings.traceparent;
  else settings.traceparent = fresh.traceparent;
  return settings;
}

/**
 * Creates the fork with its first events, claimed by this process's engine while they are written, so that nobody
 * drives it before its log holds its conversation; released queued, for the caller to schedule. A fork whose events
 * cannot be written is ended failed with the reason (never driven as if it were new).
 */
export async function createFork(toolgate: Pick<Toolgate, 'engine' | 'store'>, fork: PreparedFork): Promise<Run> {
  const { engine, store } = toolgate;
  const { run, lease } = await engine.startClaimed(fork.init);
  // A store without createAndClaimRun: claimed at once; a sweep that got there first would find an empty log.
  const held = lease ?? (await store.claimRun(run.id, { owner: engine.owner, ttlMs: engine.leaseMs }));
  if (held === undefined)
    throw new ToolgateError('internal', `fork ${run.id} was taken by another process before its log was written`);
  try {
    const state = applyEvents(emptyConversation(), numbered(run.id, fork.events));
    await store.append(run.id, fork.events, { usage: state.usage, steps: state.step }, { lease: held });
  } catch (error) {
    await endFailed(toolgate, { run, lease: held, error });
    throw error;
  } finally {
    await store.releaseRun(held).catch(() => undefined);
  }
  const written = await store.getRun(run.id);
  if (written === undefined) throw new ToolgateError('internal', `fork ${run.id} vanished from the store`);
  return written;
}

async function endFailed(
  toolgate: Pick<Toolgate, 'store'>,
  failed: { run: Run; lease: RunLease; error: unknown },
): Promise<void> {
  const info = toErrorInfo(failed.error);
  const error = { code: info.code, message: `the fork's log could not be written: ${describeError(failed.error)}` };
  await toolgate.store
    .append(
      failed.run.id,
      [draft('run_status', { from: failed.run.status, to: 'failed' }), draft('run_failed', { error })],
      { status: 'failed', error },
      { lease: failed.lease },
    )
    .catch(() => undefined);
}

/** The drafts as the store will number them, for the reducer. */
function numbered(runId: string, drafts: readonly EventDraft[]): RunEvent[] {
  const time = new Date().toISOString();
  return drafts.map((d, i): RunEvent => Object.assign({ id: i + 1, runId, time }, d));
}
