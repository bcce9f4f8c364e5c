// Per-step overhead of toolgate's loop against a hand-written fetch loop doing
// the same work: the same mock OpenAI-compatible server over loopback, the same
// in-process tool. The difference is what toolgate adds per step (events, gate,
// validation, parsing). Target for later: within 1.3× of the hand-written loop.
import { pathToFileURL } from 'node:url';
import { runAgent } from '../../src/orchestrator/run-agent.ts';
import { createOpenAIAdapter } from '../../src/providers/openai/openai-adapter.ts';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.ts';
import { createValidator } from '../../src/validation/index.ts';
import type { ToolResult, ToolSource, ToolSpec } from '../../src/core/index.ts';
import { startMockOpenAI, type RecordedRequest, type MockResponse } from '../../test/support/mock-openai-server.ts';

const STEPS = 5;
const RUNS = Number(process.env['BENCH_LOOP_RUNS'] ?? 60);

const TOOL: ToolSpec = {
  name: 'lookup',
  description: 'Looks a key up.',
  inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
  annotations: { readOnlyHint: true },
  origin: { kind: 'builtin', server: 'bench', tool: 'lookup' },
};

function lookup(key: string): ToolResult {
  return { ok: true, content: [{ type: 'text', text: `value of ${key}` }] };
}

const tools: ToolSource = {
  name: 'bench',
  listTools: async () => [TOOL],
  callTool: async (req) => lookup(String(req.arguments['key'])),
  close: async () => undefined,
};

function answer(request: RecordedRequest): MockResponse {
  const turn = (request.body.messages as { role: string }[]).filter((m) => m.role === 'assistant').length;
  return turn < STEPS - 1
    ? { toolCalls: [{ id: `c${turn}`, name: 'lookup', arguments: `{"key":"k${turn}"}` }] }
    : { text: 'done' };
}

/** The baseline: what a team writes by hand — fetch, JSON.parse the arguments, call the tool, loop. */
async function handWritten(url: string): Promise<void> {
  const messages: unknown[] = [{ role: 'user', content: 'go' }];
  const toolDefs = [
    { type: 'function', function: { name: TOOL.name, description: TOOL.description, parameters: TOOL.inputSchema } },
  ];
  for (;;) {
    const response = await fetch(`${url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ model: 'm', messages, tools: toolDefs }),
    });
    const body = (await response.json()) as {
      choices: {
        message: {
          content: string | null;
          tool_calls?: { id: string; function: { name: string; arguments: string } }[];
        };
      }[];
    };
    const message = body.choices[0]?.message;
    if (message === undefined) throw new Error('no choice');
    messages.push(message);
    if (message.tool_calls === undefined || message.tool_calls.length === 0) return;
    for (const call of message.tool_calls) {
      const args = JSON.parse(call.function.arguments) as { key: string };
      const result = lookup(args.key);
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: result.content.map((c) => (c.type === 'text' ? c.text : '')).join(''),
      });
    }
  }
}

// One validator per process, as the app does: compiled schemas are cached in it.
const validator = createValidator();

async function viaToolgate(url: string, store: MemoryRunStore, shared: boolean): Promise<void> {
  const model = createOpenAIAdapter({ model: 'm', baseUrl: url, apiKey: 'k', maxRetries: 0 });
  const run = await store.createRun({ input: 'go', model: model.id });
  // `shared: false` is runAgent called the simplest way, as the exported API allows: no validator passed.
  const final = await runAgent({ runId: run.id, store, model, tools, stream: false, ...(shared ? { validator } : {}) });
  if (final.status !== 'completed') throw new Error(`run ended ${final.status}: ${JSON.stringify(final.error)}`);
}

async function time(fn: () => Promise<void>, runs: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return samples.sort((a, b) => a - b);
}

const median = (xs: number[]) => xs[Math.floor(xs.length / 2)] ?? Number.NaN;

export async function runLoopBench(): Promise<{ name: string; lines: string[] }> {
  const mock = await startMockOpenAI({ handler: answer });
  try {
    const store = new MemoryRunStore();
    // Warm up both paths (JIT, connections), then interleave measurements to share the noise.
    await time(() => handWritten(mock.url), 10);
    await time(() => viaToolgate(mock.url, store, true), 10);
    await time(() => viaToolgate(mock.url, store, false), 10);
    const hand: number[] = [];
    const gate: number[] = [];
    const simplest: number[] = [];
    for (let round = 0; round < 4; round++) {
      hand.push(...(await time(() => handWritten(mock.url), RUNS / 4)));
      gate.push(...(await time(() => viaToolgate(mock.url, store, true), RUNS / 4)));
      simplest.push(...(await time(() => viaToolgate(mock.url, store, false), RUNS / 4)));
    }
    for (const samples of [hand, gate, simplest]) samples.sort((a, b) => a - b);
    const h = median(hand) / STEPS;
    const g = median(gate) / STEPS;
    const s = median(simplest) / STEPS;
    return {
      name: `Loop overhead per step (${STEPS}-step runs, mock model over loopback, ${RUNS} runs each, not streaming)`,
      lines: [
        `hand-written fetch loop: ${h.toFixed(2)} ms/step (median)`,
        `toolgate runAgent (memory store, gate, events): ${g.toFixed(2)} ms/step (median)`,
        `toolgate runAgent without a validator (the simplest call): ${s.toFixed(2)} ms/step (median)`,
        `ratio toolgate ÷ hand-written: ${(g / h).toFixed(2)}× (target ≤ 1.3×)`,
        `ratio simplest call ÷ shared validator: ${(s / g).toFixed(2)}× (target ≈ 1.0: no run recompiles a schema)`,
      ],
    };
  } finally {
    await mock.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const report = await runLoopBench();
  console.log(`${report.name}\n  ${report.lines.join('\n  ')}`);
}
