// The baseline: what a team writes by hand with no framework — fetch, JSON.parse
// the tool call's arguments, call the tool, loop; when streaming, the SSE body
// read by hand. No validation, no events, no store: the least work a run can be.
// The loop is hand-loop.ts, shared with baseline-node-http.ts.
import type { CreateRunner } from '../runner.ts';
import { handLoop, MODEL_HEADERS, StreamedMessage, wholeMessage, type WireMessage } from './hand-loop.ts';

/** Reads an SSE chat completion stream into one assistant message. */
async function readStream(response: Response, onText: () => void): Promise<WireMessage> {
  const streamed = new StreamedMessage(onText);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return streamed.finish();
    streamed.push(decoder.decode(value, { stream: true }));
  }
}

export const createRunner: CreateRunner = async (options) =>
  handLoop(options, async (body, onText) => {
    const response = await fetch(`${options.url}/chat/completions`, { method: 'POST', headers: MODEL_HEADERS, body });
    if (!response.ok) throw new Error(`model answered ${response.status}: ${await response.text()}`);
    return options.stream ? readStream(response, onText) : wholeMessage(await response.text());
  });
