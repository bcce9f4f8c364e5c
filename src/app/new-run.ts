import {
  ROLLOUTS_THREAD_ID,
  ToolgateError,
  type JsonObject,
  type Message,
  type ModelAdapter,
  type ModelToolDefinition,
  type NewRun,
  type RunEvent,
  type RunSettings,
} from '../core/index.ts';
import type { Settings } from '../config/resolve-settings.ts';
import { withoutUndefined } from '../core/without-undefined.ts';
import { tenantRuleFor } from '../gate/index.ts';
import { settingsFrom } from '../orchestrator/run-agent.ts';
import type { ToolMode } from '../orchestrator/state/run-options.ts';
import { strategyFor } from '../orchestrator/strategies/index.ts';
import { activeTraceparent, checkTraceparent } from '../orchestrator/call/tracing.ts';
import { priceFor } from './model-price.ts';
import { checkClientTools } from './client-tools.ts';
import { applyRollouts, type RolloutAssignment, type RolloutContext } from './rollouts/assign-rollouts.ts';
import type { RolloutName } from './rollouts/rollout-plan.ts';

export interface RunRequest {
  input: string;
  /** "provider:model"; defaults to the configured model. */
  model?: string;
  maxSteps?: number;
  /**
   * A strategy name (react, plan, reflect, auto); unknown names are refused with the known ones. Default: the
   * configured one.
   */
  strategy?: string;
  toolMode?: ToolMode;
  /** Offer the built-in todo tools (default: config `todo.enabled`). */
  todo?: boolean;
  /** A W3C traceparent the run's spans continue (default: the span active when the run is created, if any). */
  traceparent?: string;
  threadId?: string;
  tenantId?: string;
  userId?: string;
  /** The caller's roles (Caller.roles), recorded in the run's settings for the tenant's role rules. */
  roles?: string[];
  /** Writes are validated and shown, not executed. */
  dryRun?: boolean;
  /** Values for injected arguments (`{{context.*}}`). */
  context?: JsonObject;
  metadata?: JsonObject;
  /** Earlier messages of the conversation, instead of the thread's history (chat protocols). */
  history?: Message[];
  /** Tools the caller runs itself (RunSettings.clientTools); the react strategy only. */
  clientTools?: ModelToolDefinition[];
  signal?: AbortSignal;
  /** Called with every event of the run, in order, from the first one. */
  onEvent?: (event: RunEvent) => void;
}

/**
 * What the store needs to create a run for this request, its settings
 * included (request values over the configuration). The strategy, then the
 * model, are resolved here: a bad one is the caller's error, found before any run exists.
 */
export async function newRunFrom(options: {
  request: Omit<RunRequest, 'signal' | 'onEvent'>;
  settings: Settings;
  /** Where a relative price file is read from. */
  cwd: string;
  model: (id: string | undefined) => Promise<ModelAdapter>;
  /** The run's arms in the configured rollouts (Toolgate's Rollouts); absent: it takes part in none. */
  rollouts?: (context: RolloutContext) => Promise<RolloutAssignment>;
}): Promise<NewRun & { settings: RunSettings }> {
  const { request, settings: configured } = options;
  // JavaScript callers: a bare string, or no input, would otherwise start a run with nothing to answer.
  if (typeof request !== 'object' || request === null || typeof request.input !== 'string') {
    throw new ToolgateError(
      'usage',
      `a run takes an object with a string input, e.g. toolgate.run({ input: ` +
        `"What is the price for DE-LU?" }); got ${describeRequest(request)}`,
    );
  }
  if (request.threadId === ROLLOUTS_THREAD_ID)
    throw new ToolgateError(
      'usage',
      `thread "${ROLLOUTS_THREAD_ID}" holds toolgate's rollout records; choose another threadId`,
    );
  const clientTools = request.clientTools === undefined ? [] : checkClientTools(request.clientTools);
  const { rule } = tenantRuleFor(configured.tenants, request.tenantId);
  // The request's strategy over the tenant's over the config's.
  const strategy = strategyFor(
    clientTools.length > 0
      ? clientStrategy(request.strategy)
      : (request.strategy ?? rule?.strategy ?? configured.strategy),
  ).name;
  const model = await options.model(request.model);
  const guard = { ...configured.guard, ...rule?.guard };
  const live = rule?.router?.live ?? configured.routerLive;
  const price = priceFor({ prices: configured.prices, model: model.id, cwd: options.cwd });
  const traceparent = checkTraceparent(request.traceparent) ?? activeTraceparent();
  const base: RunSettings = settingsFrom({
    ...configured,
    ...(traceparent === undefined ? {} : { traceparent }),
    strategy,
    guard,
    plan: configured.plan,
    todo: {
      ...configured.todo,
      ...withoutUndefined(rule?.todo ?? {}),
      ...(request.todo === undefined ? {} : { enabled: request.todo }),
    },
    ...(price === undefined ? {} : { price }),
    ...(request.maxSteps === undefined ? {} : { maxSteps: request.maxSteps }),
    ...(request.toolMode === undefined ? {} : { toolMode: request.toolMode }),
  });
  if (live !== undefined) base.router = { live };
  const settings =
    options.rollouts === undefined
      ? base
      : applyRollouts(
          base,
          await options.rollouts({
            tenantId: request.tenantId,
            threadId: request.threadId,
            named: namedSettings(request, clientTools.length > 0),
          }),
        );
  if (request.history !== undefined) settings.history = request.history;
  if (clientTools.length > 0) settings.clientTools = clientTools;
  if (request.roles !== undefined && request.roles.length > 0) settings.roles = [...request.roles];
  return {
    input: request.input,
    model: model.id,
    settings,
    ...(request.threadId === undefined ? {} : { threadId: request.threadId }),
    ...(request.tenantId === undefined ? {} : { tenantId: request.tenantId }),
    ...(request.userId === undefined ? {} : { userId: request.userId }),
    ...(request.dryRun === true ? { dryRun: true } : {}),
    ...(request.context === undefined ? {} : { context: request.context }),
    ...(request.metadata === undefined ? {} : { metadata: request.metadata }),
  };
}

/** The settings the request chose itself: a rollout of one of them leaves the run alone. */
function namedSettings(request: Pick<RunRequest, 'strategy' | 'todo'>, clientTools: boolean): Set<RolloutName> {
  const named = new Set<RolloutName>();
  if (request.strategy !== undefined || clientTools) named.add('strategy');
  if (request.todo !== undefined) named.add('todo.enabled');
  return named;
}

/** Client tools end the run with calls for the caller, which only the react loop does: another strategy is refused. */
function clientStrategy(named: string | undefined): string {
  if (named === undefined || named === 'react') return 'react';
  throw new ToolgateError(
    'usage',
    `client tools (tools the caller runs itself) need the react strategy; got strategy "${named.slice(0, 40)}"`,
  );
}

function describeRequest(request: unknown): string {
  if (typeof request === 'string') return 'a string (pass it as { input: … })';
  if (typeof request !== 'object' || request === null) return String(request);
  const input = 'input' in request ? request.input : undefined;
  return input === undefined
    ? 'an object without input'
    : `input of type ${Array.isArray(input) ? 'array' : typeof input}`;
}
