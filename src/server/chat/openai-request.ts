import { z } from 'zod';
import { ToolgateError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import type { Message } from '../../core/messages.ts';
import type { ModelToolDefinition } from '../../core/ports/model-adapter.ts';
import { TOOL_NAME_PATTERN } from '../../core/tools.ts';
import { formatIssues } from '../schemas.ts';
import { chatMessageSchema, lastAssistantOf, toMessages, type LastAssistant } from './openai-messages.ts';

const MAX_THREAD_ID = 255;

const toolSchema = z.object({
  type: z.literal('function', 'only "function" tools are supported'),
  function: z.object({
    name: z.string().regex(TOOL_NAME_PATTERN, 'must be 1 to 64 letters, digits, "_" or "-"'),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.json(), { error: 'must be a JSON Schema object' }).nullish(),
    strict: z.boolean().nullish(),
  }),
});

/**
 * A POST /v1/chat/completions body. Fields OpenAI has and toolgate does not
 * use (temperature, top_p, seed, stop, parallel_tool_calls, logprobs, …) are
 * accepted and ignored: OpenAI adds fields often, and an SDK sends some of
 * them unasked. Fields whose request cannot be honoured are refused by name.
 */
export const chatCompletionBodySchema = z.object({
  model: z.string().min(1, 'must name a toolgate model, e.g. "openai:gpt-4o-mini" (GET /v1/models lists them)'),
  messages: z.array(chatMessageSchema).min(1, 'must hold at least one message'),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
  tools: z.array(toolSchema).nullish(),
  tool_choice: z
    .union([z.enum(['none', 'auto', 'required']), z.looseObject({ type: z.string() })], {
      error: 'must be "auto" or "none"',
    })
    .nullish(),
  n: z.number().int().nullish(),
  // The deprecated way to offer functions: refused by name rather than ignored, so a client learns its calls would
  // never come back.
  functions: z.unknown().optional(),
  function_call: z.unknown().optional(),
  audio: z.unknown().optional(),
  modalities: z.array(z.string()).nullish(),
  response_format: z.object({ type: z.string() }).nullish(),
  user: z.string().nullish(),
  metadata: z.record(z.string(), z.json(), { error: 'must be an object of strings' }).nullish(),
  toolgate: z.strictObject({ wait: z.boolean().optional() }).nullish(),
});

export type ChatCompletionBody = z.output<typeof chatCompletionBodySchema>;

/** A chat completion request as toolgate runs it. */
export interface ChatRequest {
  model: string;
  /** The last user message's text; '' when the conversation ends with tool results. */
  input: string;
  /** The messages before `input` (all of them when `input` is ''). */
  history: Message[];
  /** The request's `tools`: the caller runs them, toolgate only reads and checks the calls. */
  clientTools: ModelToolDefinition[];
  threadId?: string;
  /** The body's metadata and `{protocol: 'chat.completions'}`: stored with the run. */
  metadata: JsonObject;
  stream: boolean;
  /** `stream_options.include_usage`: a last chunk carries the usage. */
  includeUsage: boolean;
  /** `toolgate.wait`: hold the answer through approvals. */
  wait: boolean;
  lastAssistant?: LastAssistant;
}

/** The protocol a run started here records in its metadata. */
export const CHAT_PROTOCOL = 'chat.completions';

/**
 * Validates a body into a ChatRequest. `threadHeader` is the X-Toolgate-Thread-Id
 * header, which wins over `metadata.thread` and `user`.
 */
export function parseChatRequest(body: unknown, options: { threadHeader?: string | undefined } = {}): ChatRequest {
  if (body === undefined) {
    throw new ToolgateError(
      'usage',
      'request body is required: send {"model": "…", "messages": [{"role": "user", "content": "…"}]} ' +
        'with "Content-Type: application/json"',
    );
  }
  const parsed = chatCompletionBodySchema.safeParse(body);
  if (!parsed.success) {
    throw new ToolgateError('usage', `invalid request body: ${formatIssues(parsed.error.issues, body)}`, {
      details: { issues: parsed.error.issues },
    });
  }
  const data = parsed.data;
  refuseUnsupported(data);
  const messages = toMessages(data.messages);
  const last = messages.at(-1);
  const conversation =
    last?.role === 'user' ? { input: last.content, history: messages.slice(0, -1) } : { input: '', history: messages };
  const request: ChatRequest = {
    model: data.model,
    ...conversation,
    clientTools: data.tool_choice === 'none' ? [] : clientToolsOf(data.tools ?? []),
    metadata: { ...data.metadata, protocol: CHAT_PROTOCOL },
    stream: data.stream === true,
    includeUsage: data.stream_options?.include_usage === true,
    wait: data.toolgate?.wait === true,
  };
  const threadId = threadOf(data, options.threadHeader);
  if (threadId !== undefined) request.threadId = threadId;
  const lastAssistant = lastAssistantOf(data.messages);
  if (lastAssistant !== undefined) request.lastAssistant = lastAssistant;
  return request;
}

/** Requests toolgate cannot honour are refused rather than answered as if they had been. */
function refuseUnsupported(data: ChatCompletionBody): void {
  const refuse = (message: string): never => {
    throw new ToolgateError('usage', message);
  };
  if (data.n !== null && data.n !== undefined && data.n !== 1)
    refuse(`n must be 1: toolgate answers with one choice (got ${data.n})`);
  if (data.audio !== null && data.audio !== undefined) refuse('audio output is not supported: leave "audio" out');
  if (data.functions !== undefined || data.function_call !== undefined) {
    refuse(
      '"functions" and "function_call" (deprecated by OpenAI) are not supported: declare the functions in "tools" ' +
        '([{"type": "function", "function": {name, description, parameters}}]) and use "tool_choice"',
    );
  }
  if (data.modalities?.some((m) => m !== 'text') === true)
    refuse('modalities must be ["text"]: toolgate answers with text only');
  if (data.response_format !== null && data.response_format !== undefined && data.response_format.type !== 'text') {
    refuse(
      `response_format "${data.response_format.type.slice(0, 40)}" is not supported: ` +
        'leave response_format out (or {"type": "text"}) and ask for JSON in the prompt',
    );
  }
  const choice = data.tool_choice;
  if (choice !== null && choice !== undefined && choice !== 'auto' && choice !== 'none') {
    refuse(
      'tool_choice must be "auto" or "none": the model chooses its calls itself, ' +
        `and a call cannot be forced (got ${JSON.stringify(choice).slice(0, 80)})`,
    );
  }
}

function clientToolsOf(tools: readonly z.output<typeof toolSchema>[]): ModelToolDefinition[] {
  const seen = new Set<string>();
  return tools.map(({ function: fn }, i) => {
    if (seen.has(fn.name)) throw new ToolgateError('usage', `tools[${i}]: the name "${fn.name}" is used twice`);
    seen.add(fn.name);
    const parameters = fn.parameters ?? { type: 'object' };
    if (parameters['type'] !== undefined && parameters['type'] !== 'object') {
      throw new ToolgateError(
        'usage',
        `tools[${i}].function.parameters must be a JSON Schema of type "object" (the call's arguments), ` +
          `got type ${JSON.stringify(parameters['type']).slice(0, 40)}`,
      );
    }
    return { name: fn.name, description: fn.description ?? '', parameters };
  });
}

/** X-Toolgate-Thread-Id, else `metadata.thread`, else `user`: the conversation's thread. */
function threadOf(data: ChatCompletionBody, header: string | undefined): string | undefined {
  if (header !== undefined) return header;
  const fromMetadata = data.metadata?.['thread'];
  if (fromMetadata !== undefined) {
    if (typeof fromMetadata !== 'string' || fromMetadata.length < 1 || fromMetadata.length > MAX_THREAD_ID)
      throw new ToolgateError('usage', `metadata.thread must be a string of 1 to ${MAX_THREAD_ID} characters`);
    return fromMetadata;
  }
  const user = data.user;
  if (user === null || user === undefined || user === '') return undefined;
  if (user.length > MAX_THREAD_ID) {
    throw new ToolgateError(
      'usage',
      `user must be at most ${MAX_THREAD_ID} characters: it names the conversation's thread (got ${user.length})`,
    );
  }
  return user;
}
