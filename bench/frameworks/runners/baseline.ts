// The baseline: what a team writes by hand with no framework — fetch, JSON.parse
// the tool call's arguments, call the tool, loop; when streaming, the SSE body
// read by hand. No validation, no events, no store: the least work a run can be.
import { API_KEY, MODEL_NAME, type CreateRunner } from '../runner.ts';
import { jsonSchemaOf, lookup, notCalled, PROMPT } from '../workload.ts';

interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

interface WireMessage {
  role: string;
  content: string | null;
  tool_calls?: WireToolCall[];
}

interface Chunk {
  choices: { delta: { content?: string | null; tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[] } }[];
}

/** Reads an SSE chat completion stream into one assistant message, calling onText per content piece. */
async function readStream(response: Response, onText: () => void): Promise<WireMessage> {
  const message: WireMessage = { role: 'assistant', content: null };
  const calls: WireToolCall[] = [];
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!event.startsWith('data: ')) continue;
      const data = event.slice(6);
      if (data === '[DONE]') continue;
      const d = (JSON.parse(data) as Chunk).choices[0]?.delta;
      if (d === undefined) continue;
      if (typeof d.content === 'string' && d.content !== '') {
        message.content = (message.content ?? '') + d.content;
        onText();
      }
      for (const part of d.tool_calls ?? []) {
        const call = (calls[part.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
        if (part.id !== undefined) call.id = part.id;
        if (part.function?.name !== undefined) call.function.name += part.function.name;
        if (part.function?.arguments !== undefined) call.function.arguments += part.function.arguments;
      }
    }
  }
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

export const createRunner: CreateRunner = async ({ url, tools, stream }) => {
  const toolDefs = tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: jsonSchemaOf(t) } }));
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` };
  return {
    async run(onText) {
      const messages: unknown[] = [{ role: 'user', content: PROMPT }];
      for (;;) {
        const response = await fetch(`${url}/chat/completions`, { method: 'POST', headers, body: JSON.stringify({ model: MODEL_NAME, messages, tools: toolDefs, stream }) });
        if (!response.ok) throw new Error(`model answered ${response.status}: ${await response.text()}`);
        const message = stream ? await readStream(response, onText) : ((await response.json()) as { choices: { message: WireMessage }[] }).choices[0]?.message;
        if (message === undefined) throw new Error('no choice in the answer');
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
};
