// The baseline's loop directly on undici's dispatcher, the client toolgate's
// model calls go through (src/providers/shared/post-with-undici.ts): an Agent
// with keep-alive pools, each request dispatched with a handler of its own —
// below fetch's web layer and node:http's streams. The same work as baseline.ts
// (the loop is hand-loop.ts, shared): the floor toolgate's own work is measured
// against, apart from any difference between HTTP clients. The undici is the
// copy toolgate loads (loadToolgateUndici), not a second one.
import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import { UNDICI_LOOP_USER_AGENT, type CreateRunner } from '../runner.ts';
import { loadToolgateUndici } from '../toolgate-package.ts';
import { handLoop, MODEL_HEADERS, StreamedMessage, wholeMessage, type WireMessage } from './hand-loop.ts';

const { Agent } = await loadToolgateUndici();
const agent = new Agent();
const HEADERS = { ...MODEL_HEADERS, 'user-agent': UNDICI_LOOP_USER_AGENT };

interface AnswerInput {
  stream: boolean;
  onText: () => void;
  resolve: (message: WireMessage) => void;
  reject: (error: Error) => void;
}

/** One answer read as it comes: a whole body's chunks kept to be parsed at its end, an SSE body as it arrives. */
class Answer implements Dispatcher.DispatchHandler {
  readonly #input: AnswerInput;
  #status = 0;
  readonly #chunks: Buffer[] = [];
  #streamed: StreamedMessage | undefined;
  readonly #decoder = new StringDecoder('utf8');

  constructor(input: AnswerInput) {
    this.#input = input;
  }

  // undici takes a handler for its current interface (rather than the legacy one) by this method's presence.
  onRequestStart(): void {
    // Nothing to do before the answer.
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.#status = statusCode;
    if (this.#input.stream && statusCode === 200) this.#streamed = new StreamedMessage(this.#input.onText);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#streamed === undefined) this.#chunks.push(chunk);
    else this.#streamed.push(this.#decoder.write(chunk));
  }

  onResponseEnd(): void {
    const { resolve, reject } = this.#input;
    if (this.#streamed !== undefined) return resolve(this.#streamed.finish());
    const text = Buffer.concat(this.#chunks).toString('utf8');
    if (this.#status !== 200) return reject(new Error(`model answered ${this.#status}: ${text}`));
    try {
      resolve(wholeMessage(text));
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#input.reject(error);
  }
}

export const createRunner: CreateRunner = async (options) => {
  const target = new URL(`${options.url}/chat/completions`);
  const path = `${target.pathname}${target.search}`;
  return handLoop(
    options,
    (body, onText) =>
      new Promise((resolve, reject) => {
        agent.dispatch(
          { origin: target.origin, path, method: 'POST', headers: HEADERS, body },
          new Answer({ stream: options.stream, onText, resolve, reject }),
        );
      }),
  );
};
