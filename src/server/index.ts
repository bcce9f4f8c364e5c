export type { ApiKeyEntry } from './auth.ts';
export {
  DEFAULT_AUTH_BASE_DELAY_MS,
  DEFAULT_AUTH_FORGET_AFTER_MS,
  DEFAULT_AUTH_FREE_FAILURES,
  DEFAULT_AUTH_MAX_DELAY_MS,
  KEY_PREFIX_LENGTH,
  type AuthBackoffSettings,
  type AuthThrottleEvent,
} from './auth-throttle.ts';
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
export type { HttpServerOptions, LogEntry, McpCaller, MetricsSource, SseStats, StatsSource } from './server-context.ts';
export { DEFAULT_HEARTBEAT_MS, DEFAULT_SSE_BUFFER_LIMIT, DEFAULT_SSE_IDLE_TIMEOUT_MS } from './sse-writer.ts';
export { DEFAULT_SSE_HISTORY_TIMEOUT_MS, DEFAULT_SSE_POLL_MS } from './run-event-stream.ts';
