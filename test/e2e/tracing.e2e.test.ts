// OpenTelemetry traces with the SDK's in-memory exporter installed, as an
// application would: a span per pass over a run, per model call and per tool
// call, named and attributed after the GenAI conventions, parented under the
// traceparent the run was created with; the tool span's context reaches the
// MCP server in `_meta.traceparent`. Without an SDK the run's own traceparent
// is passed on (checked against `toolgate serve`).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Toolgate } from '../../src/app/toolgate.ts';
import { resolveSettings } from '../../src/config/resolve-settings.ts';
import type { Run } from '../../src/core/index.ts';
import { ofType } from '../support/events.ts';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.ts';
import { startServe, type StartedProcess } from '../support/processes.ts';

const META_ECHO = fileURLToPath(new URL('../fixtures/mcp/meta-echo-server.ts', import.meta.url));
const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('tracing', () => {
  let mock: MockOpenAI;
  before(async () => {
    mock = await startMockOpenAI();
  });
  after(async () => {
    await mock.close();
  });

  describe('with an SDK installed (in-memory exporter)', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    before(() => {
      trace.setGlobalTracerProvider(provider);
    });
    after(async () => {
      await provider.shutdown();
      trace.disable();
    });

    it(
      'a chat span of an answer without usage carries the ' +
        'counts toolgate estimated, marked toolgate.usage.estimated',
      async () => {
        const settings = resolveSettings(
          { model: 'openai:local-model', providers: { openai: { baseUrl: mock.url, apiKey: 'k', maxRetries: 0 } } },
          {},
          {},
        );
        const toolgate = new Toolgate({ settings: { ...settings, stream: false } });
        try {
          mock.enqueue({ text: 'calm', omitUsage: true });
          const run = await toolgate.run({ input: 'how is the market?' });
          assert.equal(run.status, 'completed', JSON.stringify(run.error));
          const chat = exporter.getFinishedSpans().find((s) => s.name === 'chat local-model');
          assert.ok(chat !== undefined);
          assert.equal(chat.attributes['toolgate.usage.estimated'], true);
          assert.equal(chat.attributes['gen_ai.usage.input_tokens'], run.usage.promptTokens);
          assert.equal(chat.attributes['gen_ai.usage.output_tokens'], run.usage.completionTokens);
          assert.ok(run.usage.promptTokens > 0 && run.usage.completionTokens > 0, JSON.stringify(run.usage));
        } finally {
          await toolgate.close();
          // The other cases read the exporter's spans from the start.
          exporter.reset();
        }
      },
    );

    it(
      "a pass span under the run's traceparent, with chat and " +
        'execute_tool spans under it; the tool span reaches the MCP server',
      async () => {
        const settings = resolveSettings(
          {
            model: 'openai:mock-model',
            providers: { openai: { baseUrl: mock.url, apiKey: 'k', maxRetries: 0 } },
            servers: { echo: { command: process.execPath, args: [META_ECHO] } },
          },
          {},
          {},
        );
        const toolgate = new Toolgate({ settings: { ...settings, stream: false } });
        try {
          mock.enqueue(
            {
              toolCalls: [{ id: 'e1', name: 'echoMeta', arguments: '{}' }],
              usage: { promptTokens: 30, completionTokens: 5 },
            },
            { text: 'echoed', usage: { promptTokens: 40, completionTokens: 2 } },
          );
          const run = await toolgate.run({ input: 'echo', traceparent: PARENT });
          assert.equal(run.status, 'completed', JSON.stringify(run.error));
          assert.equal(run.settings?.traceparent, PARENT, 'stored with the run');
          const spans = exporter.getFinishedSpans();
          const pass = spans.find((s) => s.name === 'invoke_agent toolgate');
          const chats = spans.filter((s) => s.name === 'chat mock-model');
          const tool = spans.find((s) => s.name === 'execute_tool echoMeta');
          assert.ok(pass !== undefined && tool !== undefined, spans.map((s) => s.name).join(', '));
          assert.equal(chats.length, 2);
          assert.equal(
            pass.spanContext().traceId,
            '0af7651916cd43dd8448eb211c80319c',
            "the run continues the caller's trace",
          );
          assert.equal(pass.parentSpanContext?.spanId, 'b7ad6b7169203331');
          for (const child of [...chats, tool])
            assert.equal(
              child.parentSpanContext?.spanId,
              pass.spanContext().spanId,
              `${child.name} is a child of the pass`,
            );
          assert.deepEqual(
            {
              op: chats[0]?.attributes['gen_ai.operation.name'],
              model: chats[0]?.attributes['gen_ai.request.model'],
              provider: chats[0]?.attributes['gen_ai.provider.name'],
              in: chats[0]?.attributes['gen_ai.usage.input_tokens'],
              out: chats[0]?.attributes['gen_ai.usage.output_tokens'],
            },
            { op: 'chat', model: 'mock-model', provider: 'openai', in: 30, out: 5 },
          );
          assert.equal(chats[0]?.attributes['toolgate.usage.estimated'], undefined, 'reported usage is not marked');
          const log = await toolgate.store.readEvents(run.id);
          const callId = ofType(log, 'tool_call')[0]?.data.toolCallId;
          assert.equal(tool.attributes['gen_ai.operation.name'], 'execute_tool');
          assert.equal(tool.attributes['gen_ai.tool.name'], 'echoMeta');
          assert.equal(tool.attributes['gen_ai.tool.call.id'], callId);
          assert.equal(tool.attributes['toolgate.gate.decision'], 'allowed');
          assert.equal(tool.attributes['toolgate.tool.effect'], 'read');
          assert.equal(pass.attributes['toolgate.run.id'], run.id);
          assert.equal(pass.attributes['toolgate.run.status'], 'completed');
          const seen = JSON.parse(
            ofType(log, 'tool_result')[0]?.data.content[0]?.type === 'text'
              ? (ofType(log, 'tool_result')[0]?.data.content[0] as { text: string }).text
              : '{}',
          ) as Record<string, string>;
          assert.equal(
            seen['traceparent'],
            `00-${tool.spanContext().traceId}-${tool.spanContext().spanId}-01`,
            'the MCP server got the tool span as its parent',
          );
          assert.equal(seen['toolgate/idempotency-key'], `${run.id}:${callId}`);
        } finally {
          await toolgate.close();
        }
      },
    );

    it('a failed run ends its pass span with an error status and the code', async () => {
      exporter.reset();
      const settings = resolveSettings(
        {
          model: 'openai:mock-model',
          providers: { openai: { baseUrl: mock.url, apiKey: 'k', maxRetries: 0 } },
          servers: { echo: { command: process.execPath, args: [META_ECHO] } },
        },
        {},
        {},
      );
      const toolgate = new Toolgate({ settings: { ...settings, stream: false, maxSteps: 1 } });
      try {
        mock.enqueue({ toolCalls: [{ id: 'e1', name: 'echoMeta', arguments: '{}' }] });
        const run = await toolgate.run({ input: 'echo' });
        assert.equal(run.error?.code, 'max_steps');
        const pass = exporter.getFinishedSpans().find((s) => s.name === 'invoke_agent toolgate');
        assert.equal(pass?.status.code, 2);
        assert.equal(pass?.attributes['error.type'], 'max_steps');
      } finally {
        await toolgate.close();
      }
    });
  });

  describe('without an SDK (toolgate serve)', () => {
    let dir: string;
    let server: StartedProcess & { url: string };
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'toolgate-trace-'));
      writeFileSync(
        join(dir, 'toolgate.yaml'),
        `model: openai:mock\nstream: false\nproviders:\n  openai: { baseUrl: "${mock.url}", apiKey: k, ` +
          (`maxRetries: 0 }\nservers:\n  echo:\n    command: ` +
            `${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(META_ECHO)}]\n`),
      );
      server = await startServe({ cwd: dir });
    });
    after(async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it(
      'POST /v1/runs with a traceparent header: stored with the ' +
        'run and passed on to MCP calls; a malformed one is ignored',
      async () => {
        mock.enqueue({ toolCalls: [{ id: 'e1', name: 'echoMeta', arguments: '{}' }] }, { text: 'ok' });
        const created = (await (
          await fetch(`${server.url}/v1/runs`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', traceparent: PARENT },
            body: JSON.stringify({ input: 'echo' }),
          })
        ).json()) as Run;
        assert.equal(created.settings?.traceparent, PARENT);
        let run = created;
        for (let i = 0; i < 200 && run.status !== 'completed' && run.status !== 'failed'; i++) {
          await new Promise((r) => setTimeout(r, 50));
          run = (await (await fetch(`${server.url}/v1/runs/${created.id}`)).json()) as Run;
        }
        assert.equal(run.status, 'completed', JSON.stringify(run.error));
        const events = (
          (await (await fetch(`${server.url}/v1/runs/${created.id}/events?format=json`)).json()) as {
            events: Parameters<typeof ofType>[0];
          }
        ).events;
        const text = (ofType(events, 'tool_result')[0]?.data.content[0] as { text: string } | undefined)?.text ?? '{}';
        assert.equal((JSON.parse(text) as Record<string, string>)['traceparent'], PARENT);

        mock.enqueue({ text: 'no tools' });
        const bad = (await (
          await fetch(`${server.url}/v1/runs`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              traceparent: '00-00000000000000000000000000000000-b7ad6b7169203331-01',
            },
            body: JSON.stringify({ input: 'hi' }),
          })
        ).json()) as Run;
        assert.equal(bad.settings?.traceparent, undefined);
      },
    );
  });
});
