import {
  addUsage,
  draft,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  type ModelAdapter,
  type ModelResponse,
  type ParsedToolCall,
  type RawToolCall,
} from '../../core/index.ts';
import type { CallFormat } from '../../parsing/formats/call-format.ts';
import { extractMessageDetailed, repairJson, turnCalls, withoutReasoning } from '../../parsing/index.ts';
import { askWhileCommitting } from './ask-while-committing.ts';
import type { ConversationState } from '../state/run-state.ts';
import { assistantMessageData } from './model-turn.ts';
import type { SideCallRequest, SideCallResult } from '../strategies/strategy.ts';
import type { ToolCatalog } from '../call/tool-catalog.ts';
import type { AppendFn } from '../log/transition.ts';

export interface SideCallInput {
  model: ModelAdapter;
  state: ConversationState;
  catalog: ToolCatalog;
  append: AppendFn;
  signal?: AbortSignal | undefined;
  callIndex: () => number;
  mode: 'native' | 'prompted';
  /** Whether what is held back is committed while the model is asked (see PassInput.commitAlongside); default yes. */
  commitAlongside?: (() => boolean) | undefined;
  /** The run's call formats (RunEnvironment.formats): a side call's reply is read as the run's turns are. */
  formats?: readonly CallFormat[] | undefined;
}

/**
 * One model call outside the conversation, recorded as an assistant_message
 * with its `purpose` (its usage and step count like any other call), never
 * streamed: what the model wrote is read by the strategy, not shown as an answer.
 */
export async function runSideCall(input: SideCallInput, request: SideCallRequest): Promise<SideCallResult> {
  const step = input.state.step + 1;
  const started = performance.now();
  const offer = request.offerTools === true && input.mode === 'native';
  // What is held back is committed while the model is asked: before its answer is used.
  const response: ModelResponse = await askWhileCommitting(
    input.append,
    () =>
      input.model.generate(
        {
          messages: request.messages,
          tools: offer ? input.catalog.definitions : [],
          stream: false,
          callIndex: input.callIndex(),
          purpose: request.purpose,
        },
        input.signal === undefined ? {} : { signal: input.signal },
      ),
    input.commitAlongside?.() ?? true,
  );
  const native = response.toolCalls.map((c): RawToolCall => ({ id: c.id, name: c.name, arguments: c.arguments }));
  const extraction = extractMessageDetailed({
    text: response.text,
    toolCalls: native,
    finishReason: response.finishReason,
    tools: request.offerTools === true ? input.catalog.refs : [],
    ...(input.formats === undefined || input.formats.length === 0 ? {} : { formats: input.formats }),
  });
  // Read as a turn's calls are, under ids of the side call's own: its assistant_message records them so.
  const read = turnCalls(extraction, { calls: native, truncated: false }).map(({ parsed, recorded }, i) => {
    const id = `${request.purpose}_${step}_${i + 1}`;
    return { parsed: { ...parsed, id }, recorded: { id, name: recorded.name, arguments: recorded.arguments } };
  });
  const calls: ParsedToolCall[] = read.map((c) => c.parsed);
  await input.append(
    [
      draft('assistant_message', {
        ...assistantMessageData(response, { step, started, mode: input.mode, attempt: 1 }),
        purpose: request.purpose,
        ...(read.length > 0 ? { calls: read.map((c) => c.recorded) } : {}),
      }),
    ],
    { steps: step, usage: addUsage(input.state.usage, response.usage) },
  );
  return {
    step,
    text: response.text,
    answer: withoutReasoning(response.text).trim(),
    json: readJsonReply(response.text),
    calls,
  };
}

/** Longer replies are not read as JSON: a plan, a verdict or a route is short, and repair is not free. */
export const MAX_JSON_REPLY_CHARS = 200_000;

/**
 * The JSON object (or array) in a model's reply: inside a code fence or prose,
 * after a think block; repaired leniently.
 */
export function readJsonReply(text: string): JsonObject | JsonValue[] | undefined {
  if (text.length > MAX_JSON_REPLY_CHARS) return undefined;
  const visible = withoutReasoning(text);
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(visible)?.[1];
  const body = fenced ?? visible;
  const object = body.indexOf('{');
  const array = body.indexOf('[');
  // A top-level array (a list of steps) starts before any object.
  const isArray = array >= 0 && (object < 0 || array < object);
  const start = isArray ? array : object;
  if (start < 0) return undefined;
  const end = body.lastIndexOf(isArray ? ']' : '}');
  const candidate = end > start ? body.slice(start, end + 1) : body.slice(start);
  const read = repairJson(candidate);
  if (!read.ok) return undefined;
  return isJsonObject(read.value) || Array.isArray(read.value) ? read.value : undefined;
}
