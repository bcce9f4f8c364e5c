import type { IncomingMessage, ServerResponse } from 'node:http';

/** The MCP endpoint path. */
export const DEFAULT_MCP_PATH = '/mcp';
/** Same bound as the SDK's own default; larger bodies are refused with 413 before parsing. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

// Hop-by-hop headers belong to one connection; node:http sets its own.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade']);

export interface NodeListenerOptions {
  /** A fetch-style handler, e.g. `createMcpHandler(factory).fetch`. */
  handler: (request: Request) => Promise<Response>;
  path?: string;
  maxBodyBytes?: number;
  onError?: (error: Error) => void;
}

class BodyTooLarge extends Error {}

function jsonError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message } }));
}

async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function toWebRequest(req: IncomingMessage, body: Buffer | undefined, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
  const init: RequestInit = { method: req.method ?? 'GET', headers, signal };
  if (body !== undefined) init.body = new Uint8Array(body);
  return new Request(url, init);
}

/** Streams a web Response into a node response chunk by chunk, so SSE events leave as they are produced. */
async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name) && name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  res.writeHead(response.status, response.statusText, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  res.once('close', stop);
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) return;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          res.once('drain', resolve);
          res.once('close', resolve);
        });
      }
    }
    res.end();
  } finally {
    res.off('close', stop);
  }
}

/**
 * Adapts a fetch-style handler to node:http: IncomingMessage → web Request
 * (aborted when the client goes away), web Response → streamed reply.
 */
export function toNodeListener(options: NodeListenerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const path = options.path ?? DEFAULT_MCP_PATH;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const pathname = (req.url ?? '/').split('?')[0];
    if (pathname !== path) return jsonError(res, 404, `no MCP endpoint at ${pathname}; use ${path}`);
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    let body: Buffer | undefined;
    try {
      body = hasBody ? await readBody(req, maxBodyBytes) : undefined;
    } catch (error) {
      if (error instanceof BodyTooLarge) return jsonError(res, 413, `request body exceeds ${maxBodyBytes} bytes`);
      throw error;
    }
    res.socket?.setNoDelay(true);
    const response = await options.handler(toWebRequest(req, body, controller.signal));
    await writeResponse(response, res);
  }

  return (req, res) => {
    serve(req, res).catch((error: unknown) => {
      const err = error instanceof Error ? error : new Error(String(error));
      options.onError?.(err);
      if (!res.headersSent) jsonError(res, 500, `internal error: ${err.message}`);
      else res.destroy(err);
    });
  };
}
