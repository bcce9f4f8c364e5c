import type {
  JsonObject,
  Message,
  ModelAdapter,
  LiveRouterEvidence,
  RouterEvidence,
  Run,
  RunStore,
  StrategyName,
  ToolResult,
  ToolSource,
  ToolSpec,
} from '../../core/index.ts';
import type { Policy, ToolEffect } from '../../gate/index.ts';
import type { CallFormat } from '../../parsing/formats/call-format.ts';
import type { Validator } from '../../validation/index.ts';

export { DEFAULT_MAX_STEPS, DEFAULT_PARSE_RETRIES, DEFAULT_TOOL_TIMEOUT_MS } from '../../core/index.ts';

/**
 * How tools reach the model. `native`: tool definitions in the API request;
 * `prompted`: described in the system prompt, calls read from the reply text;
 * `auto`: native, falling back to prompted when the endpoint rejects `tools`.
 */
export type ToolMode = 'native' | 'prompted' | 'auto';

/**
 * Native mode: what to do with a tool call the model writes in its answer text
 * instead of as a native call. `never`: it is text. `auto` (default): executed
 * only when the reply is nothing but the call (small models that ignore the
 * native format); a call written after prose is never run: the model is
 * asked to make it through the tool-calling interface (within parseRetries),
 * and a model that does it again in the run is switched to prompted mode for
 * the rest of it (DEFAULT_TEXT_CALLS_BEFORE_PROMPTED, `tool_mode_changed`).
 * `always`: executed wherever it appears. Prompted mode always reads calls
 * from the text.
 */
export type TextToolCalls = 'never' | 'auto' | 'always';
export const DEFAULT_TEXT_TOOL_CALLS: TextToolCalls = 'auto';

/**
 * What a hook sees of a tool call. `arguments` are the ones that will run:
 * validated, normalised, injected — and, for a call that needed a person,
 * those they approved or edited.
 */
export interface HookToolCall {
  runId: string;
  toolCallId: string;
  name: string;
  tool: ToolSpec;
  effect: ToolEffect;
  arguments: JsonObject;
  tenantId?: string;
  userId?: string;
  context?: JsonObject;
}

/** A beforeToolCall verdict: let it run, refuse it (the model gets the reason), or change its arguments. */
export type BeforeToolCallVerdict =
  | { action: 'allow' }
  | { action: 'deny'; reason: string }
  | { action: 'rewrite'; arguments: JsonObject; reason?: string };

/**
 * Library hooks for checks a config cannot express. What a hook did is
 * audited in the call's gate_decision event. A hook that throws denies the
 * call (beforeToolCall) or is reported and ignored (the others).
 */
export interface RunHooks {
  onRunStart?: (run: Run) => void | Promise<void>;
  onRunEnd?: (run: Run) => void | Promise<void>;
  /**
   * Runs at most once per call, as the gate's last check, on the arguments
   * that will actually run — so only for a call the gate would otherwise let
   * run (allowed, or a dry run). A call that needs a person reaches it after
   * their decision (approve, or edit: the edited arguments are checked),
   * never while it waits; a denied, invalid, rejected or marked-done call
   * never does. A rewrite is validated against the tool's schema again.
   */
  beforeToolCall?: (
    call: HookToolCall,
  ) => BeforeToolCallVerdict | undefined | Promise<BeforeToolCallVerdict | undefined>;
  /** May replace the result the model sees. */
  afterToolCall?: (
    call: HookToolCall & { result: ToolResult },
  ) => ToolResult | undefined | Promise<ToolResult | undefined>;
}

/**
 * What a process brings to every run it drives: adapters (injected; the
 * orchestrator never imports them) and process-wide configuration. Nothing
 * here varies per run: per-run settings live with the run (RunSettings).
 */
export interface RunEnvironment {
  model: ModelAdapter;
  tools: ToolSource;
  policy?: Policy | undefined;
  validator?: Validator | undefined;
  hooks?: RunHooks | undefined;
  systemPrompt?: string | undefined;
  /** Earlier messages of the conversation, instead of the run's thread. */
  history?: readonly Message[] | undefined;
  /** Key patterns whose values are redacted in events (default: password, token, secret, apiKey, authorization). */
  redact?: readonly string[] | undefined;
  toolTimeoutMs?: number | undefined;
  /** Eval results the auto strategy routes by (router.evalResults). */
  routerEvidence?: RouterEvidence | undefined;
  /** The live outcomes the auto strategy's router adds when the run's settings say `router.live`. */
  liveEvidence?: LiveRouterEvidence | undefined;
  /**
   * Call formats the run's model turns read besides the built-in lexicon: the
   * config's `parsing.formats` and the one derived from the model's chat
   * template (resolved by the app; the orchestrator never reads a template).
   */
  formats?: readonly CallFormat[] | undefined;
}

/** Everything a run needs. Adapters are injected here; the orchestrator never imports them. */
export interface RunAgentOptions {
  runId: string;
  store: RunStore;
  model: ModelAdapter;
  tools: ToolSource;
  maxSteps?: number;
  strategy?: StrategyName;
  /** Stream model output (assistant_delta events). Default true. */
  stream?: boolean;
  signal?: AbortSignal;
  /** Shutdown: stop at the next safe point (between steps) without ending the run. */
  stopSignal?: AbortSignal;
  systemPrompt?: string;
  /** Earlier messages of the conversation (a thread). */
  history?: readonly Message[];
  toolTimeoutMs?: number;
  toolMode?: ToolMode;
  /** Prompted mode: ask the endpoint to constrain output to the call format (structured output). */
  constrain?: boolean;
  /** Feedback rounds per turn when the model's tool calls cannot be used. Default 3. */
  parseRetries?: number;
  /** Native mode: calls written in the answer text (default `auto`). */
  textToolCalls?: TextToolCalls;
  /** Call formats read besides the built-in lexicon (see RunEnvironment.formats). */
  formats?: readonly CallFormat[];
  policy?: Policy;
  /** Default: the process-wide validator (sharedValidator), whose compiled schemas every run reuses. */
  validator?: Validator;
  /** Key patterns whose values are redacted in events (default: password, token, secret, apiKey, authorization). */
  redact?: readonly string[];
  hooks?: RunHooks;
}
