import { ToolgateError, type ErrorCode } from '../../core/errors.ts';
import type { ModelResponse } from '../../core/ports/model-adapter.ts';
import { newId } from '../../core/runs.ts';
import type { RawToolCall } from '../../core/tools.ts';
import { providerMessageOf } from '../shared/http-errors.ts';
import type { AssemblerOptions } from '../shared/limits.ts';
import { RetryableFailure } from '../shared/request-loop.ts';
import { StreamAssembly } from '../shared/stream-assembly.ts';
import { argumentsText, asObject, previewJson } from '../shared/wire.ts';
import { buildResponse, readUsage, thinkingBlockOf, type WireUsage } from './from-wire.ts';
import type { ThinkingBlock } from './to-wire.ts';

interface PendingCall {
  id: string;
  name: string;
  /** `input` of content_block_start: the arguments when no partial_json follows. */
  input: unknown;
  /** partial_json fragments, concatenated exactly as received. */
  partial: string;
}

/** What a content block index stands for. Blocks of other types (server tools, citations…) are not tracked. */
type Slot = { type: 'text' } | { type: 'tool_use'; call: PendingCall } | { type: 'thinking'; block: ThinkingBlock };

/** Mid-stream error types that mean "try again", with the HTTP status the API gives them outside a stream. */
const RETRYABLE_STREAM_ERRORS: Readonly<Record<string, number>> = { overloaded_error: 529, api_error: 500 };
const STREAM_ERROR_CODES: Readonly<Record<string, ErrorCode>> = {
  overloaded_error: 'model_unavailable',
  rate_limit_error: 'model_rate_limited',
};

export type StreamAssemblerOptions = AssemblerOptions;

/**
 * Folds the Messages API's server-sent events into one ModelResponse. Blocks
 * are keyed by their `index`, which is only a map key (a server sending
 * `index: 1e9` sizes nothing); the number of tool calls is bounded. Tool
 * arguments are the partial_json fragments joined exactly as received:
 * parsing and repair belong to src/parsing/. Unknown event types are ignored,
 * as the API documents that new ones may appear.
 */
export class StreamAssembler extends StreamAssembly {
  readonly #slots = new Map<number, Slot>();
  readonly #calls: PendingCall[] = [];
  readonly #thinking: ThinkingBlock[] = [];
  readonly #usage: WireUsage = {};
  #stopReason: unknown;
  #finished = false;

  /** True once message_stop arrived: the answer is complete. */
  override get finished(): boolean {
    return this.#finished;
  }

  /** One event: its SSE name and its parsed data. The data's own `type` wins, as some proxies drop `event:` lines. */
  push(eventName: string, data: unknown): void {
    const root = asObject(data);
    if (root === undefined)
      throw new ToolgateError(
        'model_error',
        `malformed stream: event ${eventName} is not an object: ${previewJson(data, 200)}`,
      );
    const type = typeof root['type'] === 'string' ? root['type'] : eventName;
    switch (type) {
      case 'message_start':
        readUsage(asObject(root['message'])?.['usage'], this.#usage);
        break;
      case 'content_block_start':
        this.#startBlock(root['index'], asObject(root['content_block']));
        break;
      case 'content_block_delta':
        this.#delta(root['index'], asObject(root['delta']));
        break;
      case 'message_delta': {
        const stopReason = asObject(root['delta'])?.['stop_reason'];
        if (typeof stopReason === 'string') this.#stopReason = stopReason;
        readUsage(root['usage'], this.#usage);
        break;
      }
      case 'message_stop':
        this.#finished = true;
        break;
      case 'error':
        throw this.#streamError(root);
      default:
      // ping, content_block_stop and event types added later carry nothing to keep.
    }
  }

  override finish(): ModelResponse {
    const toolCalls: RawToolCall[] = this.#calls.map((c) => ({
      id: c.id === '' ? newId('toolu') : c.id,
      name: c.name,
      // No fragments (or only empty ones): the start block's input, normally {}.
      arguments: c.partial !== '' ? c.partial : argumentsText(c.input),
    }));
    const { text, reasoning } = this;
    return buildResponse({
      text,
      reasoning,
      toolCalls,
      stopReason: this.#stopReason,
      usage: this.#usage,
      thinking: this.#thinking,
    });
  }

  #startBlock(index: unknown, block: Record<string, unknown> | undefined): void {
    if (typeof index !== 'number' || block === undefined) return;
    if (block['type'] === 'text') {
      this.#slots.set(index, { type: 'text' });
      if (typeof block['text'] === 'string') this.pushText(block['text']);
    } else if (block['type'] === 'tool_use') {
      this.roomForCall(this.#calls.length);
      const call: PendingCall = {
        id: typeof block['id'] === 'string' ? block['id'] : '',
        name: typeof block['name'] === 'string' ? block['name'] : '',
        input: block['input'],
        partial: '',
      };
      this.#calls.push(call);
      this.#slots.set(index, { type: 'tool_use', call });
    } else {
      const thinking = thinkingBlockOf(block);
      if (thinking === undefined) return;
      this.#thinking.push(thinking);
      if (thinking.type === 'thinking') {
        this.reasoning += thinking.thinking;
        this.#slots.set(index, { type: 'thinking', block: thinking });
      }
    }
  }

  #delta(index: unknown, delta: Record<string, unknown> | undefined): void {
    if (delta === undefined) return;
    const slot = typeof index === 'number' ? this.#slots.get(index) : undefined;
    switch (delta['type']) {
      case 'text_delta':
        if (typeof delta['text'] === 'string') this.pushText(delta['text']);
        break;
      case 'input_json_delta':
        if (slot?.type === 'tool_use' && typeof delta['partial_json'] === 'string')
          slot.call.partial += delta['partial_json'];
        break;
      case 'thinking_delta':
        if (typeof delta['thinking'] !== 'string') break;
        this.reasoning += delta['thinking'];
        if (slot?.type === 'thinking' && slot.block.type === 'thinking') slot.block.thinking += delta['thinking'];
        break;
      case 'signature_delta':
        // The signature arrives whole, just before the block stops.
        if (slot?.type === 'thinking' && slot.block.type === 'thinking' && typeof delta['signature'] === 'string')
          slot.block.signature = delta['signature'];
        break;
      default:
      // citations_delta and delta types added later.
    }
  }

  /**
   * An `error` event after the 200. Overloaded or internal trouble before any
   * text reached the caller is retried like the same error as an HTTP status;
   * after that, or for any other error type, the call fails with the provider's message.
   */
  #streamError(root: Record<string, unknown>): Error {
    const errorType = asObject(root['error'])?.['type'];
    const kind = typeof errorType === 'string' ? errorType : 'error';
    const message = providerMessageOf(root);
    const status = RETRYABLE_STREAM_ERRORS[kind];
    if (status !== undefined && !this.delivered) {
      const bodyText = JSON.stringify({ type: 'error', error: { type: kind, message } });
      return new RetryableFailure({ status, bodyText, cause: new Error(`${kind} mid-stream: ${message}`) });
    }
    const after = this.delivered ? ' after text was delivered, so it was not retried' : '';
    return new ToolgateError(
      STREAM_ERROR_CODES[kind] ?? 'model_error',
      `the model failed mid-stream${after} (${kind}): ${message}`,
      {
        details: { providerMessage: message, errorType: kind },
      },
    );
  }
}
