import { ToolgateError, type Readiness, describeError } from '../../core/index.ts';
import { readQuery } from '../query.ts';
import { sendJson } from '../respond.ts';
import type { RequestContext } from '../server-context.ts';
import { buildOpenApiDocument } from '../openapi.ts';

/** GET /v1/tools: the tools the caller's tenant may use. */
export async function listTools(ctx: RequestContext): Promise<void> {
  readQuery(ctx.url, []);
  const { tools, servers } = await ctx.state.service.listTools(ctx.caller);
  sendJson(ctx.res, 200, {
    tools: tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: tool.annotations ?? {},
      origin: tool.origin,
      effect: tool.effect,
      approval: tool.approval,
      injected: tool.injected,
      untrusted: tool.untrusted,
      available: tool.available,
    })),
    servers,
  });
}

/**
 * GET /v1/models: the models the caller's tenant may choose, and the default;
 * the same body is also OpenAI's model list (`object: "list"`, `data`), with
 * every model named exactly (patterns with `*` name no model an SDK could list).
 */
export async function listModels(ctx: RequestContext): Promise<void> {
  readQuery(ctx.url, []);
  const choices = await ctx.state.service.listModels(ctx.caller);
  const ids = [...new Set([...(choices.default === undefined ? [] : [choices.default]), ...choices.models])];
  const data = ids
    .filter((id) => !id.includes('*'))
    .map((id) => ({ id, object: 'model', created: 0, owned_by: 'toolgate' }));
  sendJson(ctx.res, 200, {
    ...(choices.default === undefined ? {} : { default: choices.default }),
    models: choices.models,
    object: 'list',
    data,
  });
}

/** GET /metrics: the Prometheus exposition, behind an API key when the server has keys. */
export async function metrics(ctx: RequestContext): Promise<void> {
  readQuery(ctx.url, []);
  const { metrics: source, metricsElsewhere } = ctx.state;
  if (metricsElsewhere !== undefined)
    throw new ToolgateError('not_found', `metrics are served on ${metricsElsewhere}/metrics (server.metricsPort)`);
  if (source === undefined) throw new ToolgateError('not_found', 'this server exports no metrics');
  const { contentType, body } = await source();
  ctx.res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(body);
}

/** GET /healthz: the process answers. Says nothing about dependencies (that is /readyz). */
export async function healthz(ctx: RequestContext): Promise<void> {
  sendJson(ctx.res, 200, { status: 'ok' });
}

/** GET /readyz: 200 while runs can be taken, 503 otherwise (load balancers stop sending traffic). */
export async function readyz(ctx: RequestContext): Promise<void> {
  if (ctx.state.closing) {
    sendJson(ctx.res, 503, { status: 'not_ready', reason: 'the server is shutting down' });
    return;
  }
  let result: Readiness;
  try {
    result = await ctx.state.service.ready();
  } catch (error) {
    result = { ready: false, reason: describeError(error) };
  }
  const servers = result.servers === undefined ? {} : { servers: result.servers };
  if (result.ready) sendJson(ctx.res, 200, { status: 'ready', ...servers });
  else
    sendJson(ctx.res, 503, {
      status: 'not_ready',
      ...(result.reason === undefined ? {} : { reason: result.reason }),
      ...servers,
    });
}

let openApiText: string | undefined;

/** GET /openapi.json: the API description, built once. */
export async function openApi(ctx: RequestContext): Promise<void> {
  openApiText ??= JSON.stringify(buildOpenApiDocument());
  ctx.res.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(openApiText)),
  });
  ctx.res.end(openApiText);
}
