// The in-process RunService: RunManager over a Toolgate made as a library user makes
// one (createToolgate), with a SQLite store in a temporary folder, the contract's
// scripted model and its write tool defined in code. Events are read from the store,
// as the server reads them for its clients.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunManager } from '../../src/app/run-manager.ts';
import { createToolgate } from '../../src/app/create-toolgate.ts';
import { ToolgateError, type Caller, type RunEvent } from '../../src/core/index.ts';
import { defineTool } from '../../src/tools/local/define-tool.ts';
import { CONTRACT_SCRIPT, RECORD_TOOL, runServiceContract } from './run-service.contract.ts';

const POLL_MS = 20;

runServiceContract('RunService contract: RunManager (in process)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-run-service-'));
  writeFileSync(join(dir, 'script.json'), JSON.stringify(CONTRACT_SCRIPT));
  const record = defineTool({
    name: RECORD_TOOL,
    description: 'Records a note.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    effect: 'write',
    execute: (args) => `recorded ${String(args['text'])}`,
  });
  const toolgate = await createToolgate({
    model: 'scripted:./script.json',
    cwd: dir,
    tools: [record],
    store: `sqlite:${join(dir, 'runs.db')}`,
  });
  const service = new RunManager({ toolgate });
  /** Another tenant's run does not exist for a caller, here as in every method of the port. */
  const visible = async (caller: Caller, runId: string): Promise<void> => {
    if ((await service.getRun(caller, runId)) === undefined)
      throw new ToolgateError('not_found', `run "${runId}" not found`);
  };
  const events = async (caller: Caller, runId: string, after: number): Promise<RunEvent[]> => {
    await visible(caller, runId);
    return toolgate.store.readEvents(runId, { after });
  };
  return {
    service,
    callers: { acme: { tenantId: 'acme', userId: 'ann' }, globex: { tenantId: 'globex', userId: 'gus' } },
    events,
    follow: async (caller, runId, options) => {
      const seen: RunEvent[] = [];
      for (;;) {
        for (const event of await events(caller, runId, seen.at(-1)?.id ?? options.after)) {
          seen.push(event);
          if (options.until(event)) return seen;
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    },
    cleanup: async () => {
      await service.shutdown({ graceMs: 1000 });
      await toolgate.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
