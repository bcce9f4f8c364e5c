/**
 * Reading a 2xx answer, the same for every provider: a whole JSON body or a
 * stream whose items the provider's assembler takes. The provider supplies how
 * to parse the body and how to handle one stream item.
 */
import { ToolgateError } from '../../core/errors.ts';
import type { GenerateOptions, ModelRequest, ModelResponse } from '../../core/ports/model-adapter.ts';
import type { HttpAnswer } from './http-answer.ts';
import { providerMessage } from './http-errors.ts';
import { readAnswerText, readFailure, RetryableFailure } from './request-loop.ts';
import { asObject } from './wire.ts';

/**
 * A whole (non-streamed) answer, parsed by `parse`. A server that answered a
 * streaming request with one body (a proxy) still shows its text as one delta.
 */
export async function readWholeAnswer(input: {
  response: HttpAnswer;
  signal: AbortSignal;
  url: string;
  provider: string;
  maxBytes: number;
  request: ModelRequest;
  generate: GenerateOptions;
  parse: (text: string) => ModelResponse;
}): Promise<ModelResponse> {
  const text = await readAnswerText(input);
  const result = input.parse(text);
  if (input.request.stream && result.text !== '') input.generate.onTextDelta?.(result.text);
  return result;
}

/**
 * A 200 whose JSON body is an error (`{"error": …}`, or `isError` says so) fails the call with the provider's words.
 */
export function refuseErrorBody(answer: { json: unknown; text: string; url: string; isError?: boolean }): void {
  const error = asObject(answer.json)?.['error'];
  if (answer.isError !== true && (error === undefined || error === null)) return;
  const message = providerMessage(answer.text);
  throw new ToolgateError('model_error', `${answer.url} answered 200 with an error: ${message}`, {
    details: { providerMessage: message },
  });
}

/** What a provider's stream assembler reports. */
export interface AssembledStream {
  /** Text already reached the caller: a retry would show it twice. */
  readonly delivered: boolean;
  /** The provider said why it stopped: the answer is complete. */
  readonly finished: boolean;
  /**
   * The stream's last event came, so nothing more is read (OpenAI's `[DONE]`,
   * which follows the usage chunk after finish_reason). Without it, `finished` says so.
   */
  readonly ended?: boolean;
  finish(): ModelResponse;
}

/**
 * A streamed answer: `read` reads the body's items, handing each to `each`,
 * which hands it to the assembler. A connection that breaks while reading,
 * or a stream that ends before its last item (`unfinished` says what was
 * missing), is worth another attempt, unless text already reached the caller.
 */
export async function readStreamedAnswer<T>(input: {
  read: (each: (item: T) => void) => Promise<void>;
  each: (item: T) => void;
  assembler: AssembledStream;
  signal: AbortSignal;
  unfinished: string;
}): Promise<ModelResponse> {
  const { assembler, signal } = input;
  try {
    await input.read(input.each);
  } catch (error) {
    throw readFailure(error, { signal, delivered: assembler.delivered });
  }
  if (!(assembler.ended === true || assembler.finished)) {
    throw new RetryableFailure({
      cause: new Error(`the stream ended before the model finished (${input.unfinished})`),
      delivered: assembler.delivered,
    });
  }
  return assembler.finish();
}

/** Whether reading may stop: the stream's last event came. */
export function streamEnded(assembler: AssembledStream): boolean {
  return assembler.ended ?? assembler.finished;
}
