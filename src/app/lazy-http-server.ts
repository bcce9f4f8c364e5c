// The HTTP server as the library's entry offers it: loaded on first use, not
// when the library is imported. Its routes, schemas and zod are about 10 MB that
// a program calling only `run` never needs. Required (synchronously) because
// createHttpHandler is synchronous. The sources run as .ts (tests), the package as .js.
import { createRequire } from 'node:module';
import type * as Server from '../server/index.ts';
import type { HttpHandler, HttpServerOptions, RunningHttpServer, StartHttpServerOptions } from '../server/index.ts';

const SERVER = import.meta.url.endsWith('.ts') ? '../server/index.ts' : '../server/index.js';
let server: typeof Server | undefined;

function loadServer(): typeof Server {
  // require() is typed any: the module's own types come from the `import type` above.
  const loaded: typeof Server = server ?? createRequire(import.meta.url)(SERVER);
  server = loaded;
  return loaded;
}

/** The API as a request handler, for a server of the caller's own (see server/http-server.ts). */
export function createHttpHandler(options: HttpServerOptions): HttpHandler {
  return loadServer().createHttpHandler(options);
}

/** Starts the HTTP server (see server/http-server.ts). */
export async function startHttpServer(options: StartHttpServerOptions): Promise<RunningHttpServer> {
  return loadServer().startHttpServer(options);
}
