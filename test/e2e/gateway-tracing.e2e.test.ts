// Gateway traffic in traces: with the OpenTelemetry SDK's in-memory exporter
// installed, a gateway call is an `invoke_agent` span continuing the client's
// `_meta.traceparent`, with the `execute_tool` span under it, whose context
// reaches the upstream MCP server. The gateway runs in this process, over HTTP.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway, type GatewayApp } from '../../src/app/create-gateway.ts';
import { Toolgate } from '../../src/app/toolgate.ts';
import { resolveSettings } from '../../src/config/resolve-settings.ts';
import { textOf } from '../support/gateway.ts';

const META_ECHO = fileURLToPath(new URL('../fixtures/mcp/meta-echo-server.ts', import.meta.url));
const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('gateway tracing (in-memory exporter)', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let toolgate: Toolgate;
  let app: GatewayApp;
  let http: Server;
  let url: string;
  before(async () => {
    trace.setGlobalTracerProvider(provider);
    toolgate = new Toolgate({
      settings: resolveSettings({ servers: { echo: { command: process.execPath, args: [META_ECHO] } } }, {}, {}),
    });
    app = createGateway({ toolgate });
    http = createServer(
      (req, res) => void app.http.handle(req, res, { tenantId: 'acme', userId: 'alice', dryRun: false }),
    );
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const address = http.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/mcp`;
  });
  after(async () => {
    await app.close('the test ended');
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
    await toolgate.close();
    await provider.shutdown();
    trace.disable();
  });

  it(
    "continues the client's trace: invoke_agent → " + 'execute_tool, whose context reaches the upstream server',
    async () => {
      const client = new Client({ name: 'traced', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        const result = await client.callTool({ name: 'echoMeta', arguments: {}, _meta: { traceparent: PARENT } });
        const seen = JSON.parse(textOf(result)) as Record<string, unknown>;
        const spans = exporter.getFinishedSpans();
        const pass = spans.find((s) => s.name === 'invoke_agent toolgate');
        const tool = spans.find((s) => s.name === 'execute_tool echoMeta');
        assert.ok(pass !== undefined && tool !== undefined, spans.map((s) => s.name).join(', '));
        assert.equal(pass.spanContext().traceId, '0af7651916cd43dd8448eb211c80319c');
        assert.equal(pass.parentSpanContext?.spanId, 'b7ad6b7169203331');
        assert.equal(pass.attributes['toolgate.tenant.id'], 'acme');
        assert.equal(tool.parentSpanContext?.spanId, pass.spanContext().spanId);
        assert.equal(tool.attributes['toolgate.gate.decision'], 'allowed');
        assert.equal(
          seen['traceparent'],
          `00-0af7651916cd43dd8448eb211c80319c-${tool.spanContext().spanId}-01`,
          "the upstream server got the tool span's context",
        );
      } finally {
        await client.close();
      }
    },
  );
});
