import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { costOf, estimatedTokens, runStrategy, type Run, type RunEvent, type RunStore } from '../core/index.ts';
import { envelopeFamily } from '../parsing/index.ts';
import type { AuthThrottleEvent, SseStats } from '../server/index.ts';
import { timeAppends } from './timed-store.ts';
import { registerWaitingGauges } from './waiting-gauges.ts';

/**
 * Label values per label beyond this are counted as `other`: a model inventing tool names cannot grow the metrics
 * without bound.
 */
export const MAX_LABEL_VALUES = 200;
/** Runs whose per-run state (labels, calls seen) is kept at once; the oldest is dropped beyond. */
const MAX_TRACKED_RUNS = 10_000;

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

interface RunLabels {
  tenant: string;
  strategy: string;
  model: string;
  /** USD per million tokens, when the run's model has a price. */
  price?: { inputPerMTok: number; outputPerMTok: number } | undefined;
}

interface TrackedRun {
  labels: Promise<RunLabels>;
  /** Each call's tool and effect, from its gate_decision. */
  calls: Map<string, { tool: string; effect: string }>;
  executed: Set<string>;
  /** Events are applied in order, after the labels are known. */
  chain: Promise<void>;
}

/**
 * toolgate's Prometheus metrics, all named `toolgate_*`, fed by the events
 * this process appends (runs, tool calls, model calls, tokens and cost, guard
 * trips, parse repairs and retries) and read from the store at scrape time
 * (runs waiting for a person). Labels are bounded: tenants, strategies,
 * models, tools and codes — never run or call ids.
 */
export class ToolgateMetrics {
  readonly registry = new Registry();
  readonly #store: Pick<RunStore, 'getRun' | 'listRuns'>;
  readonly #runs = new Map<string, TrackedRun>();
  readonly #seen = new Map<string, Set<string>>();
  #sse: () => SseStats = () => ({ subscribers: 0, overflows: 0 });

  readonly #runsStarted: Counter<'strategy' | 'tenant'>;
  readonly #runsEnded: Counter<'status' | 'strategy' | 'tenant'>;
  readonly #toolCalls: Counter<'tool' | 'effect' | 'outcome'>;
  readonly #modelLatency: Histogram<'model'>;
  readonly #toolLatency: Histogram<'tool'>;
  readonly #tokens: Counter<'model' | 'direction'>;
  readonly #tokensEstimated: Counter<'model' | 'direction'>;
  readonly #cost: Counter<'model'>;
  readonly #guardTrips: Counter<'code' | 'action'>;
  readonly #parseRepairs: Counter<'family' | 'code'>;
  readonly #parseRetries: Counter<'code'>;
  readonly #storeAppend: Histogram;
  readonly #authFailures: Counter<'via'>;
  readonly #authThrottled: Counter<'limit'>;

  constructor(options: { store: Pick<RunStore, 'getRun' | 'listRuns'>; processMetrics?: boolean }) {
    this.#store = options.store;
    const registers = [this.registry];
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'toolgate_' });
    const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> =>
      new Counter({ name, help, labelNames, registers });
    this.#runsStarted = counter('toolgate_runs_started_total', 'Runs started, by strategy and tenant', [
      'strategy',
      'tenant',
    ]);
    this.#runsEnded = counter(
      'toolgate_runs_total',
      'Runs ended, by status (completed, failed, cancelled), strategy and tenant',
      ['status', 'strategy', 'tenant'],
    );
    this.#toolCalls = counter(
      'toolgate_tool_calls_total',
      'Tool calls by tool, effect (read, write) and outcome (ok, error, denied, invalid, approval, dry_run)',
      ['tool', 'effect', 'outcome'],
    );
    this.#modelLatency = new Histogram({
      name: 'toolgate_model_call_duration_seconds',
      help: 'Model calls, by model',
      labelNames: ['model'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#toolLatency = new Histogram({
      name: 'toolgate_tool_call_duration_seconds',
      help: 'Tool calls that ran, by tool',
      labelNames: ['tool'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#tokens = counter(
      'toolgate_tokens_total',
      'Model tokens, by model and direction (input, output; cache_read and cache_write are parts of input)',
      ['model', 'direction'],
    );
    this.#tokensEstimated = counter(
      'toolgate_tokens_estimated_total',
      'Of toolgate_tokens_total, the tokens toolgate estimated with its tokenizer ' +
        'because the model API did not report them, by model and direction (input, output)',
      ['model', 'direction'],
    );
    this.#cost = counter('toolgate_cost_usd_total', 'Model cost in US dollars at the configured prices, by model', [
      'model',
    ]);
    this.#guardTrips = counter('toolgate_guard_trips_total', 'Runtime guard trips, by code and action', [
      'code',
      'action',
    ]);
    this.#parseRepairs = counter(
      'toolgate_parse_repairs_total',
      'What the parser repaired or rejected in model turns, by family (native ' +
        'calls, or the text format: hermes, mistral, deepseek, …) and diagnostic code',
      ['family', 'code'],
    );
    this.#parseRetries = counter(
      'toolgate_parse_retries_total',
      'Model turns sent back with feedback, by the first diagnostic code',
      ['code'],
    );
    this.#storeAppend = new Histogram({
      name: 'toolgate_store_append_duration_seconds',
      help: 'Appends to the run store',
      buckets: STORE_BUCKETS,
      registers,
    });
    this.#authFailures = counter(
      'toolgate_auth_failures_total',
      'Wrong API keys presented, by where (bearer: an Authorization header; sign_in: POST /v1/session)',
      ['via'],
    );
    this.#authThrottled = counter(
      'toolgate_auth_throttled_total',
      'Requests answered 429 because of failed authentications, by the count that refused them (address, key_prefix)',
      ['limit'],
    );
    registerWaitingGauges({ store: this.#store, registers });
    const subscribers: Gauge = new Gauge({
      name: 'toolgate_sse_subscribers',
      help: 'Open SSE event streams',
      registers,
      collect: () => {
        subscribers.set(this.#sse().subscribers);
      },
    });
    const overflows: Gauge = new Gauge({
      name: 'toolgate_sse_overflows',
      help: 'SSE streams ended because their client read too slowly, since start',
      registers,
      collect: () => {
        overflows.set(this.#sse().overflows);
      },
    });
  }

  /** Counts a failed authentication, or a request the backoff refused. */
  authEvent(event: AuthThrottleEvent): void {
    if (event.type === 'failure') this.#authFailures.inc({ via: event.via });
    else this.#authThrottled.inc({ limit: event.limit });
  }

  /** Where SSE numbers come from (the HTTP server, once it runs). */
  set sse(source: () => SseStats) {
    this.#sse = source;
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /** A store whose appends are timed; everything else is the store itself. */
  timeAppends<S extends RunStore>(store: S): S {
    return timeAppends(store, this.#storeAppend);
  }

  /** Feeds events (of one or several runs, each run's in order). */
  observe(events: readonly RunEvent[]): void {
    for (const event of events) {
      const run = this.#track(event.runId);
      run.chain = run.chain.then(async () => this.#apply(event, run, await run.labels)).catch(() => undefined);
      if (event.type === 'run_completed' || event.type === 'run_failed' || event.type === 'run_cancelled') {
        void run.chain.then(() => this.#runs.delete(event.runId));
      }
    }
  }

  #track(runId: string): TrackedRun {
    let run = this.#runs.get(runId);
    if (run !== undefined) return run;
    if (this.#runs.size >= MAX_TRACKED_RUNS) {
      const oldest = this.#runs.keys().next().value;
      if (oldest !== undefined) this.#runs.delete(oldest);
    }
    const labels = this.#store.getRun(runId).then(
      (found) => labelsOf(found),
      () => labelsOf(undefined),
    );
    run = { labels, calls: new Map(), executed: new Set(), chain: Promise.resolve() };
    this.#runs.set(runId, run);
    return run;
  }

  #apply(event: RunEvent, run: TrackedRun, labels: RunLabels): void {
    const tenant = this.#bounded('tenant', labels.tenant);
    const strategy = this.#bounded('strategy', labels.strategy);
    switch (event.type) {
      case 'run_started':
        this.#runsStarted.inc({ strategy, tenant });
        break;
      case 'run_completed':
      case 'run_failed':
      case 'run_cancelled':
        this.#runsEnded.inc({ status: event.type.slice('run_'.length), strategy, tenant });
        break;
      case 'assistant_message': {
        const model = this.#bounded('model', labels.model);
        this.#modelLatency.observe({ model }, event.data.latencyMs / 1000);
        const usage = event.data.usage;
        if (usage !== undefined) {
          this.#tokens.inc({ model, direction: 'input' }, usage.promptTokens);
          this.#tokens.inc({ model, direction: 'output' }, usage.completionTokens);
          // Parts of the input that the provider's prompt cache served or stored (counted in input too).
          if (usage.cacheReadTokens !== undefined)
            this.#tokens.inc({ model, direction: 'cache_read' }, usage.cacheReadTokens);
          if (usage.cacheWriteTokens !== undefined)
            this.#tokens.inc({ model, direction: 'cache_write' }, usage.cacheWriteTokens);
          if (usage.estimated === true) {
            const estimated = estimatedTokens(usage);
            this.#tokensEstimated.inc({ model, direction: 'input' }, estimated.promptTokens);
            this.#tokensEstimated.inc({ model, direction: 'output' }, estimated.completionTokens);
          }
          if (labels.price !== undefined) this.#cost.inc({ model }, costOf(usage, labels.price));
        }
        const family = event.data.toolCalls.length > 0 ? 'native' : envelopeFamily(event.data.text);
        for (const d of event.data.diagnostics ?? [])
          this.#parseRepairs.inc({ family, code: this.#bounded('code', d.code) });
        break;
      }
      case 'parse_retry':
        this.#parseRetries.inc({ code: this.#bounded('code', event.data.diagnostics[0]?.code ?? 'unknown') });
        break;
      case 'gate_decision': {
        const tool = this.#bounded('tool', event.data.name);
        run.calls.set(event.data.toolCallId, { tool, effect: event.data.effect });
        const outcome = OUTCOME_OF_DECISION[event.data.decision];
        if (outcome !== undefined) this.#toolCalls.inc({ tool, effect: event.data.effect, outcome });
        break;
      }
      case 'tool_call':
        run.executed.add(event.data.toolCallId);
        break;
      case 'tool_result': {
        const call = run.calls.get(event.data.toolCallId);
        if (run.executed.delete(event.data.toolCallId)) {
          const tool = call?.tool ?? this.#bounded('tool', event.data.name);
          this.#toolCalls.inc({ tool, effect: call?.effect ?? 'unknown', outcome: event.data.ok ? 'ok' : 'error' });
          this.#toolLatency.observe({ tool }, event.data.latencyMs / 1000);
        } else if (call === undefined && event.data.error?.code === 'tool_not_found') {
          // A tool the model made up: one label for all of them.
          this.#toolCalls.inc({ tool: '(unknown)', effect: 'unknown', outcome: 'invalid' });
        }
        run.calls.delete(event.data.toolCallId);
        break;
      }
      case 'guard_tripped':
        this.#guardTrips.inc({ code: event.data.code, action: event.data.action });
        break;
      default:
        break;
    }
  }

  /** The value, or `other` once a label has MAX_LABEL_VALUES values. */
  #bounded(label: string, value: string): string {
    let seen = this.#seen.get(label);
    if (seen === undefined) {
      seen = new Set();
      this.#seen.set(label, seen);
    }
    if (seen.has(value)) return value;
    if (seen.size >= MAX_LABEL_VALUES) return 'other';
    seen.add(value);
    return value;
  }
}

const OUTCOME_OF_DECISION: Partial<Record<string, string>> = {
  denied: 'denied',
  invalid: 'invalid',
  approval_required: 'approval',
  dry_run: 'dry_run',
};

function labelsOf(run: Run | undefined): RunLabels {
  return {
    tenant: run?.tenantId ?? '',
    strategy: (run === undefined ? undefined : runStrategy(run)) ?? 'react',
    model: run?.model ?? 'unknown',
    price: run?.settings?.price,
  };
}
