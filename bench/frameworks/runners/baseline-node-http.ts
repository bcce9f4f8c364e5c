// The baseline's loop over node:http, with a keep-alive agent, instead of fetch:
// the same work as baseline.ts through the HTTP client toolgate's model calls
// use, so that toolgate's own work can be told apart from the difference between
// the two clients. The targets stay against the fetch loop (baseline.ts), the
// loop a team writes by hand; the report shows toolgate against this one too.
import { Agent, request } from 'node:http';
import { API_KEY, MODEL_NAME, type CreateRunner } from '../runner.ts';
import { jsonSchemaOf, lookup, notCalled, PROMPT } from '../workload.ts';

interface WireToolCall { id: string; type: 'function'; function: { name: string; arguments: string } }
interface WireMessage { role: string; content: string | null; tool_calls?: WireToolCall[] }
interface Chunk { choices: { delta: { content?: string | null; tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[] } }[] }

const agent = new Agent({ keepAlive: true });

function post(url: URL, body: string, stream: boolean, onText: () => void): Promise<WireMessage> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}`, 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.setEncoding('utf8');
      let buffer = '';
      const message: WireMessage = { role: 'assistant', content: null };
      const calls: WireToolCall[] = [];
      res.on('data', (chunk: string) => {
        buffer += chunk;
        if (!stream) return;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!event.startsWith('data: ')) continue;
          const data = event.slice(6);
          if (data === '[DONE]') continue;
          const d = (JSON.parse(data) as Chunk).choices[0]?.delta;
          if (d === undefined) continue;
          if (typeof d.content === 'string' && d.content !== '') { message.content = (message.content ?? '') + d.content; onText(); }
          for (const part of d.tool_calls ?? []) {
            const call = (calls[part.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
            if (part.id !== undefined) call.id = part.id;
            if (part.function?.name !== undefined) call.function.name += part.function.name;
            if (part.function?.arguments !== undefined) call.function.arguments += part.function.arguments;
          }
        }
      });
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`model answered ${res.statusCode}: ${buffer}`));
        if (!stream) {
          const m = (JSON.parse(buffer) as { choices: { message: WireMessage }[] }).choices[0]?.message;
          return m === undefined ? reject(new Error('no choice')) : resolve(m);
        }
        if (calls.length > 0) message.tool_calls = calls;
        resolve(message);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export const createRunner: CreateRunner = async ({ url, tools, stream }) => {
  const toolDefs = tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: jsonSchemaOf(t) } }));
  const target = new URL(`${url}/chat/completions`);
  return {
    async run(onText) {
      const messages: unknown[] = [{ role: 'user', content: PROMPT }];
      for (;;) {
        const message = await post(target, JSON.stringify({ model: MODEL_NAME, messages, tools: toolDefs, stream }), stream, onText);
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
