import type { JsonObject, JsonSchema } from '../json.ts';
import type { Message } from '../messages.ts';
import type { RawToolCall } from '../tools.ts';
import type { Usage } from '../usage.ts';

/** A tool as offered to a model: the name it may call and the schema of its arguments. */
export interface ModelToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** One request to a model: the whole conversation so far and the tools on offer. */
export interface ModelRequest {
  messages: readonly Message[];
  tools: readonly ModelToolDefinition[];
  /** Stream the answer (text deltas reach `onTextDelta` as they arrive). */
  stream: boolean;
  toolChoice?: 'auto' | 'none' | 'required';
  temperature?: number;
  maxTokens?: number;
  /** Ask the endpoint to constrain output to a JSON schema (structured output). */
  responseFormat?: { type: 'json_schema'; name: string; schema: JsonSchema };
  /**
   * How many model calls this conversation had before this one (thread
   * history included): side calls of a strategy (a plan, a reflection, the
   * router) count too. Derived from the run's log, so a resumed run asks the
   * same question at the same point; the scripted model picks its turn by it.
   */
  callIndex?: number;
  /**
   * Set on a strategy's side call (a plan, a reflection, the router's choice), absent on a turn of the conversation:
   * what its assistant_message records as `purpose`. Adapters ignore it; a replay answers side calls by it.
   */
  purpose?: 'plan' | 'reflect' | 'route';
}

export interface GenerateOptions {
  signal?: AbortSignal;
  /** Called with each streamed piece of assistant text, in order. */
  onTextDelta?: (text: string) => void;
}

/**
 * Why the model stopped: 'stop' (answer done), 'tool_calls', 'length' (cut by
 * the token limit — tool calls may be truncated), 'content_filter', or the
 * provider's own word.
 */
export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | (string & {});

export interface ModelResponse {
  text: string;
  /**
   * The model's reasoning when the API returns it apart from the answer
   * (`reasoning_content`, `reasoning`). A model sometimes writes its tool call
   * there: the parser reads it (see docs/parsing.md, reasoning).
   */
  reasoning?: string;
  /** Native tool calls with their `arguments` strings exactly as received. */
  toolCalls: RawToolCall[];
  finishReason: FinishReason;
  usage?: Usage;
  /**
   * What the provider needs back with this turn when the conversation goes
   * on, opaque to everyone else: e.g. Anthropic's signed thinking blocks,
   * which must precede its tool_use blocks in the next request. Recorded in
   * the log with the turn and handed back on its AssistantMessage.
   */
  providerData?: JsonObject;
}

/**
 * A model API. Implementations are thin: translate the request to the wire,
 * the answer back, and errors into ToolgateError codes (`model_*`). They never
 * parse or repair tool-call arguments — that is src/parsing/'s job.
 */
export interface ModelAdapter {
  /** "provider:model", as the user named it. */
  readonly id: string;
  generate(request: ModelRequest, options?: GenerateOptions): Promise<ModelResponse>;
}
