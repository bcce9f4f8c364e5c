// What the hand-written loops (baseline.ts over fetch, baseline-node-http.ts
// over node:http, baseline-undici.ts on undici's dispatcher) share, so that
// they differ only in their HTTP client: the wire types, a streamed answer
// read by hand into one message, and the loop — JSON.parse the tool call's
// arguments, call the tool, ask again.
import { API_KEY, MODEL_NAME, type Runner, type RunnerOptions } from '../runner.ts';
import { jsonSchemaOf, lookup, notCalled, PROMPT } from '../workload.ts';

interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface WireMessage {
  role: string;
  content: string | null;
  tool_calls?: WireToolCall[];
}

interface Chunk {
  choices: {
    delta: {
      content?: string | null;
      tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
    };
  }[];
}

export const MODEL_HEADERS = { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` };

/** An SSE chat completion stream read by hand into one assistant message, calling onText per content piece. */
export class StreamedMessage {
  readonly #onText: () => void;
  readonly #message: WireMessage = { role: 'assistant', content: null };
  readonly #calls: WireToolCall[] = [];
  #buffer = '';

  constructor(onText: () => void) {
    this.#onText = onText;
  }

  /** The next piece of the body's text. */
  push(text: string): void {
    this.#buffer += text;
    let end: number;
    while ((end = this.#buffer.indexOf('\n\n')) >= 0) {
      const event = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      if (!event.startsWith('data: ')) continue;
      const data = event.slice(6);
      if (data === '[DONE]') continue;
      const d = (JSON.parse(data) as Chunk).choices[0]?.delta;
      if (d === undefined) continue;
      if (typeof d.content === 'string' && d.content !== '') {
        this.#message.content = (this.#message.content ?? '') + d.content;
        this.#onText();
      }
      for (const part of d.tool_calls ?? []) {
        const call = (this.#calls[part.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
        if (part.id !== undefined) call.id = part.id;
        if (part.function?.name !== undefined) call.function.name += part.function.name;
        if (part.function?.arguments !== undefined) call.function.arguments += part.function.arguments;
      }
    }
  }

  /** The message, once the body has ended. */
  finish(): WireMessage {
    if (this.#calls.length > 0) this.#message.tool_calls = this.#calls;
    return this.#message;
  }
}

/** A whole (non-streamed) answer's message. */
export function wholeMessage(text: string): WireMessage {
  const message = (JSON.parse(text) as { choices: { message: WireMessage }[] }).choices[0]?.message;
  if (message === undefined) throw new Error('no choice in the answer');
  return message;
}

/**
 * The loop over `ask`, which POSTs one request body to `${url}/chat/completions`
 * and returns the assistant message (streamed or whole, as `stream` says).
 */
export function handLoop(
  options: RunnerOptions,
  ask: (body: string, onText: () => void) => Promise<WireMessage>,
): Runner {
  const { tools, stream } = options;
  const toolDefs = tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: jsonSchemaOf(t) },
  }));
  return {
    async run(onText) {
      const messages: unknown[] = [{ role: 'user', content: PROMPT }];
      for (;;) {
        const message = await ask(JSON.stringify({ model: MODEL_NAME, messages, tools: toolDefs, stream }), onText);
        messages.push(message);
        if (message.tool_calls === undefined || message.tool_calls.length === 0) return message.content ?? '';
        for (const call of message.tool_calls) {
          const args = JSON.parse(call.function.arguments) as { key: string };
          const content = call.function.name === 'lookup' ? lookup(args.key) : notCalled(call.function.name);
          messages.push({ role: 'tool', tool_call_id: call.id, content });
        }
      }
    },
    close: async () => undefined,
  };
}
