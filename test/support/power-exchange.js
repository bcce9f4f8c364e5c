// The power-exchange example as the tests start it: the same server, with Node's
// compile cache on. A server that toolgate spawns over stdio gets only a few
// environment variables, not NODE_COMPILE_CACHE, and the tests start it some
// hundred times: compiling the example and the MCP SDK afresh each time was a
// good part of the suite's CPU time. Plain JavaScript: a TypeScript entry would
// load Node's type stripper before the cache could spare it.
import { enableCompileCache } from 'node:module';
import { fileURLToPath } from 'node:url';

// Set by scripts/run-tests.ts for the processes it starts; a no-op when Node already uses it.
enableCompileCache(
  process.env['NODE_COMPILE_CACHE'] ??
    fileURLToPath(new URL('../../node_modules/.cache/toolgate-tests', import.meta.url)),
);
await import('../../examples/power-exchange/server.ts');
