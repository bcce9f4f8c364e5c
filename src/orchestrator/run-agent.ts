import { DEFAULT_STRATEGY, newId, type Run, type RunSettings } from '../core/index.ts';
import { RunEngine } from './run-engine.ts';
import {
  DEFAULT_MAX_STEPS,
  DEFAULT_PARSE_RETRIES,
  DEFAULT_TEXT_TOOL_CALLS,
  type RunAgentOptions,
} from './state/run-options.ts';

export { DEFAULT_MAX_STEPS, type RunAgentOptions } from './state/run-options.ts';

/**
 * Drives a run from wherever its event log says it is — a new run, a run
 * resumed after an approval, or one recovered after a crash — until it
 * completes, fails, is cancelled or waits for a person. Never throws for
 * model, tool or input trouble: the run ends `failed` with the reason.
 * Returns the run as stored at the end.
 *
 * A one-off engine: the run is claimed under a lease of its own for this call.
 * The run's stored settings win; the options' maxSteps, toolMode, … apply to
 * runs created without settings.
 */
export async function runAgent(options: RunAgentOptions): Promise<Run> {
  const engine = new RunEngine({
    store: options.store,
    owner: newId('agent'),
    environment: () =>
      Promise.resolve({
        model: options.model,
        tools: options.tools,
        policy: options.policy,
        validator: options.validator,
        hooks: options.hooks,
        systemPrompt: options.systemPrompt,
        history: options.history,
        redact: options.redact,
        toolTimeoutMs: options.toolTimeoutMs,
        formats: options.formats,
      }),
    fallbackSettings: settingsFrom(options),
  });
  return engine.drive(options.runId, { signal: options.signal, stopSignal: options.stopSignal });
}

/** Settings from loose options, with the defaults. */
export function settingsFrom(options: Partial<Omit<RunSettings, 'history' | 'clientTools'>>): RunSettings {
  return {
    maxSteps: options.maxSteps ?? DEFAULT_MAX_STEPS,
    strategy: options.strategy ?? DEFAULT_STRATEGY,
    toolMode: options.toolMode ?? 'native',
    parseRetries: options.parseRetries ?? DEFAULT_PARSE_RETRIES,
    textToolCalls: options.textToolCalls ?? DEFAULT_TEXT_TOOL_CALLS,
    constrain: options.constrain ?? false,
    stream: options.stream ?? true,
    ...(options.guard === undefined ? {} : { guard: options.guard }),
    ...(options.price === undefined ? {} : { price: options.price }),
    ...(options.plan === undefined ? {} : { plan: options.plan }),
    ...(options.todo === undefined ? {} : { todo: options.todo }),
    ...(options.historyMaxTokens === undefined ? {} : { historyMaxTokens: options.historyMaxTokens }),
    ...(options.traceparent === undefined ? {} : { traceparent: options.traceparent }),
  };
}
