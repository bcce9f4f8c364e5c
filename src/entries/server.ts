// `toolgate/server`: the runs API as an HTTP server or a request handler.
export { startHttpServer, createHttpHandler } from '../app/lazy-http-server.ts';
export type { ApiKeyEntry, HttpServerOptions } from '../server/index.ts';
