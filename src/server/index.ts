export type { ApiKeyEntry } from './auth.ts';
export { DEFAULT_MAX_BODY_BYTES } from './body.ts';
export {
  createHttpHandler,
  startHttpServer,
  startMetricsServer,
  isLoopbackHost,
  DEFAULT_HOST,
  DEFAULT_PORT,
  DEFAULT_CLOSE_GRACE_MS,
  type HttpHandler,
  type RunningHttpServer,
  type StartHttpServerOptions,
} from './http-server.ts';
export { HTTP_STATUS_BY_CODE, httpStatusFor } from './http-status.ts';
export { buildOpenApiDocument } from './openapi.ts';
export { CSRF_HEADER, DEFAULT_SESSION_TTL_SECONDS, SESSION_COOKIE } from './session.ts';
export { CONSOLE_CSP } from './static-console.ts';
export type { HttpServerOptions, LogEntry, MetricsSource, SseStats } from './server-context.ts';
export { DEFAULT_HEARTBEAT_MS, DEFAULT_SSE_BUFFER_LIMIT, DEFAULT_SSE_IDLE_TIMEOUT_MS } from './sse-writer.ts';
export { DEFAULT_SSE_HISTORY_TIMEOUT_MS, DEFAULT_SSE_POLL_MS } from './run-event-stream.ts';
