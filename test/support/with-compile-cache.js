// Starts a TypeScript MCP server of the tests (node with-compile-cache.js <server.ts> [args…])
// with Node's compile cache on. A server that toolgate spawns over stdio gets only a few
// environment variables, not NODE_COMPILE_CACHE; each start then compiled the server and
// the MCP SDK afresh, and loaded Node's type stripper first. Plain JavaScript for that reason.
import { enableCompileCache } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

// Set by scripts/run-tests.ts for the processes it starts; a no-op when Node already uses it.
enableCompileCache(
  process.env['NODE_COMPILE_CACHE'] ??
    fileURLToPath(new URL('../../node_modules/.cache/toolgate-tests', import.meta.url)),
);
const [script] = process.argv.splice(2, 1);
if (script === undefined) {
  process.stderr.write('usage: node with-compile-cache.js <server.ts> [args…]\n');
  process.exit(2);
}
// The server sees the command line it would have had: node <server.ts> [args…].
process.argv[1] = resolve(script);
await import(pathToFileURL(process.argv[1]).href);
