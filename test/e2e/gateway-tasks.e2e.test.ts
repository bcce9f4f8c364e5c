// MCP tasks upstream: server-everything's simulate-research-query requires a
// task (execution.taskSupport: required); through the gateway it is a plain
// tool whose call the gateway runs as an upstream task (tools/call with task,
// tasks/get, tasks/result), recorded like any call. A cancelled call cancels
// the upstream task. Real gateway and server processes, the official SDK client.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../src/app/open-store.ts';
import { ofType } from '../support/events.ts';
import { connectStdio, eventually, runIdOf, textOf } from '../support/gateway.ts';
import { EVERYTHING_SERVER } from '../support/processes.ts';

const NODE = JSON.stringify(process.execPath);

describe('toolgate gateway: tools that need an upstream task', () => {
  let dir: string;
  let file: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-tasks-'));
    file = join(dir, 'gateway.yaml');
    writeFileSync(
      file,
      `
servers:
  everything: { command: ${NODE}, args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio] }
tools:
  "everything/simulate-research-query": { effect: read }
`,
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('calls simulate-research-query as a task, passes its status on as progress and records the result', async () => {
    const store = `sqlite:${join(dir, 'done.db')}`;
    const { client } = await connectStdio(['--config', file, '--store', store], { cwd: dir });
    let runId: string;
    const progress: string[] = [];
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === 'simulate-research-query');
      assert.ok(tool !== undefined, 'simulate-research-query is listed');
      // The gateway serves it as a plain call: its clients need not know tasks.
      assert.equal(tool.execution, undefined);
      const result = await client.callTool(
        { name: 'simulate-research-query', arguments: { topic: 'tides' } },
        { onprogress: (p) => progress.push(p.message ?? ''), timeout: 30_000 },
      );
      assert.notEqual(result.isError, true, textOf(result));
      assert.match(textOf(result), /# Research Report: tides/);
      // The server moves a stage a second and asks to be polled every second: which stages a poll sees depends on
      // timing, so the check is that its statuses come through, several, in the server's order.
      const stages = [
        'Gathering sources...',
        'Analyzing content...',
        'Synthesizing findings...',
        'Generating report...',
      ];
      const seen = progress.map((message) => stages.indexOf(message));
      assert.ok(
        seen.length >= 2 && seen.every((at, i) => at >= 0 && (i === 0 || at > (seen[i - 1] ?? -1))),
        `progress: ${progress.join(' | ')}`,
      );
      runId = runIdOf(result);
    } finally {
      await client.close();
    }
    const opened = await openStore(store, { cwd: dir });
    try {
      const events = await eventually(async () => {
        const log = await opened.readEvents(runId);
        return ofType(log, 'tool_result').length > 0 ? log : undefined;
      });
      const call = ofType(events, 'tool_call').at(-1);
      assert.deepEqual(call?.data.arguments, { topic: 'tides' });
      const recorded = ofType(events, 'tool_result').at(-1);
      assert.equal(recorded?.data.ok, true);
      assert.match(JSON.stringify(recorded?.data.content), /Research Report: tides/);
    } finally {
      await opened.close();
    }
  });

  it('a call cancelled mid-way cancels the upstream task', async () => {
    const store = `sqlite:${join(dir, 'cancelled.db')}`;
    const { client, stderr } = await connectStdio(['--config', file, '--store', store, '--verbose'], { cwd: dir });
    try {
      const controller = new AbortController();
      const started = Date.now();
      const call = client.callTool(
        { name: 'simulate-research-query', arguments: { topic: 'cancelled tides' } },
        {
          signal: controller.signal,
          onprogress: () => controller.abort(),
          timeout: 30_000,
        },
      );
      await assert.rejects(call);
      assert.ok(Date.now() - started < 3000, 'the call ended when cancelled, not when the task did');
      // The server's research goes on to its next stage, finds its task cancelled and says so on stderr.
      await eventually(
        async () => (/terminal status \\?"cancelled/.test(stderr()) ? true : undefined),
        8000,
        'the upstream task to be cancelled',
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}; gateway stderr: ${stderr().slice(-1500)}`);
      });
    } finally {
      await client.close();
    }
  });
});
