import type { PendingApproval, RunStatus } from '../../core/runs.ts';
import type { Usage } from '../../core/usage.ts';
import type { AnswerDelta, AnswerEnd, ChatAnswer, ChatToolCall } from './chat-answer.ts';

/** Who answers: repeated by every object of one answer. */
export interface AnswerIdentity {
  runId: string;
  /** The run's model, as the request named it. */
  model: string;
  /** Unix seconds. */
  created: number;
}

/** The `toolgate` extension field of a completion (and of a held answer's message). */
export interface ToolgateField {
  runId: string;
  status: RunStatus;
  pendingApproval?: PendingApproval;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls';

export interface OpenAiUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
}

export interface CompletionMessage {
  role: 'assistant';
  content: string | null;
  refusal: null;
  reasoning_content?: string;
  tool_calls?: ChatToolCall[];
  toolgate?: ToolgateField;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: [{ index: 0; message: CompletionMessage; finish_reason: FinishReason; logprobs: null }];
  usage: OpenAiUsage;
  toolgate: ToolgateField;
}

export interface ChunkDelta {
  role?: 'assistant';
  content?: string;
  reasoning_content?: string;
  tool_calls?: (ChatToolCall & { index: number })[];
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: 0; delta: ChunkDelta; finish_reason: FinishReason | null; logprobs: null }[];
  usage?: OpenAiUsage;
  toolgate?: ToolgateField;
}

export function completionId(runId: string): string {
  return `chatcmpl-${runId}`;
}

/** OpenAI's usage object; cached prompt tokens are told when the provider reported them. */
export function openAiUsage(usage: Usage): OpenAiUsage {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.totalTokens,
    ...(usage.cacheReadTokens === undefined ? {} : { prompt_tokens_details: { cached_tokens: usage.cacheReadTokens } }),
  };
}

export function finishReasonOf(end: AnswerEnd): FinishReason {
  if (end.kind === 'client_tool_calls') return 'tool_calls';
  if (end.kind === 'completed') return end.finishReason;
  return 'stop';
}

/** What the run's status is once the answer ended this way. */
export function toolgateFieldOf(runId: string, end: AnswerEnd): ToolgateField {
  if (end.kind === 'hold') return { runId, status: 'waiting_approval', pendingApproval: end.pendingApproval };
  return { runId, status: end.kind === 'failed' ? 'failed' : end.kind === 'cancelled' ? 'cancelled' : 'completed' };
}

/**
 * The `chat.completion` object of a non-streamed answer that ended with an
 * answer, client tool calls or a hold (a failed or cancelled run is an error).
 */
export function completionObject(who: AnswerIdentity, answer: ChatAnswer): ChatCompletion {
  const end = answer.end;
  if (end === undefined || end.kind === 'failed' || end.kind === 'cancelled')
    throw new Error('completionObject: the answer has not ended with a message');
  const toolgate = toolgateFieldOf(who.runId, end);
  const message: CompletionMessage = { role: 'assistant', content: null, refusal: null };
  if (end.kind === 'hold') {
    message.content = end.message;
    message.toolgate = toolgate;
  } else {
    message.content = end.kind === 'client_tool_calls' && end.output === '' ? null : end.output;
    if (answer.reasoning !== undefined && answer.reasoning !== '') message.reasoning_content = answer.reasoning;
  }
  if (end.kind === 'client_tool_calls') message.tool_calls = end.calls;
  return {
    id: completionId(who.runId),
    object: 'chat.completion',
    created: who.created,
    model: who.model,
    choices: [{ index: 0, message, finish_reason: finishReasonOf(end), logprobs: null }],
    usage: openAiUsage(answer.usage),
    toolgate,
  };
}

/** One `chat.completion.chunk` with one choice. */
export function chunkObject(
  who: AnswerIdentity,
  choice: { delta: ChunkDelta; finishReason?: FinishReason | undefined },
): ChatCompletionChunk {
  return {
    id: completionId(who.runId),
    object: 'chat.completion.chunk',
    created: who.created,
    model: who.model,
    choices: [{ index: 0, delta: choice.delta, finish_reason: choice.finishReason ?? null, logprobs: null }],
  };
}

/** An answer's delta as a chunk's `delta`; tool calls are numbered from `firstIndex`. */
export function deltaObject(delta: AnswerDelta, firstIndex: number): ChunkDelta {
  const out: ChunkDelta = {};
  if (delta.content !== undefined) out.content = delta.content;
  if (delta.reasoning !== undefined) out.reasoning_content = delta.reasoning;
  if (delta.toolCalls !== undefined)
    out.tool_calls = delta.toolCalls.map((call, i) => ({ index: firstIndex + i, ...call }));
  return out;
}

/** The last chunk: the finish reason, and the `toolgate` field. */
export function finalChunk(who: AnswerIdentity, end: AnswerEnd): ChatCompletionChunk {
  return {
    ...chunkObject(who, { delta: {}, finishReason: finishReasonOf(end) }),
    toolgate: toolgateFieldOf(who.runId, end),
  };
}

/** The usage chunk of `stream_options.include_usage`: no choices. */
export function usageChunk(who: AnswerIdentity, usage: Usage): ChatCompletionChunk {
  return {
    id: completionId(who.runId),
    object: 'chat.completion.chunk',
    created: who.created,
    model: who.model,
    choices: [],
    usage: openAiUsage(usage),
  };
}
