// The RunService port over the runs API of a real `toolgate serve` process: a
// SQLite store in a temporary folder, the contract's scripted model, and its write
// tool on the contract MCP server (a process of its own). Two tenants, each with a
// key naming its user. Events are read as clients read them: JSON pages and the
// SSE stream resumed with Last-Event-ID.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTRACT_SERVER } from '../support/contract-tools.ts';
import { HttpRunService } from '../support/http-run-service.ts';
import { WITH_COMPILE_CACHE, startServe } from '../support/processes.ts';
import { CONTRACT_SCRIPT, runServiceContract } from './run-service.contract.ts';

const KEYS: Record<string, string> = { acme: 'acme-contract-key-0123456789', globex: 'globex-contract-key-0123456789' };

runServiceContract('RunService contract: the runs API of toolgate serve (HTTP)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-run-service-http-'));
  writeFileSync(join(dir, 'script.json'), JSON.stringify(CONTRACT_SCRIPT));
  writeFileSync(
    join(dir, 'toolgate.yaml'),
    `model: scripted:./script.json
servers:
  contract:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(WITH_COMPILE_CACHE)}, ${JSON.stringify(CONTRACT_SERVER)}]
tenants:
  acme:
    apiKeys: [{ key: "${KEYS['acme']}", userId: ann }]
  globex:
    apiKeys: [{ key: "${KEYS['globex']}", userId: gus }]
server:
  store: sqlite:./data/runs.db
`,
  );
  const server = await startServe({ cwd: dir });
  const service = new HttpRunService({ url: server.url, keyOf: (caller) => KEYS[caller.tenantId ?? ''] ?? '' });
  return {
    service,
    callers: { acme: { tenantId: 'acme', userId: 'ann' }, globex: { tenantId: 'globex', userId: 'gus' } },
    events: (caller, runId, after) => service.events(caller, runId, after),
    follow: (caller, runId, options) => service.follow(caller, runId, options),
    cleanup: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
