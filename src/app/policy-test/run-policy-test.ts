import type { Run, RunEvent } from '../../core/index.ts';
import { toolRefOf, type ToolRef } from '../../gate/match-tool-pattern.ts';
import { replayRun } from '../replay/index.ts';
import type { Toolgate } from '../toolgate.ts';
import { checkExpectation, type ReplayedRun, type ToolRefs } from './check-expectation.ts';
import type { PolicySuite } from './policy-suite.ts';
import type { PolicyTestReport, ReplayedRunSummary } from './policy-test-report.ts';

export interface RunPolicyTestOptions {
  suite: PolicySuite;
  /** How the report names the suite (the path as given). */
  label: string;
  /** Opened on the configuration under test: its policy decides the replays' calls. */
  toolgate: Toolgate;
  /** The suite's recorded runs, each with its whole log. */
  originals: readonly { run: Run; events: RunEvent[] }[];
  /** Stops the replays (Ctrl-C). */
  signal?: AbortSignal;
}

/**
 * Replays every recorded run under the configuration under test — recorded model turns and recorded tool
 * results only: never the live model, never a real call — and checks each expectation on every replay.
 */
export async function runPolicyTest(options: RunPolicyTestOptions): Promise<PolicyTestReport> {
  const { toolgate, suite } = options;
  const replayed: ReplayedRun[] = [];
  const summaries: ReplayedRunSummary[] = [];
  for (const original of options.originals) {
    const { diff, replay } = await replayRun({
      original,
      toolgate,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    replayed.push({ run: original.run, diff, events: replay.events });
    const summary: ReplayedRunSummary = {
      id: original.run.id,
      changed: diff.changed,
      ...(original.run.tenantId === undefined ? {} : { tenant: original.run.tenantId }),
      ...(diff.divergedAtStep === undefined ? {} : { divergedAtStep: diff.divergedAtStep }),
    };
    summaries.push(summary);
  }
  const refs = await toolRefs(toolgate, replayed);
  const results = suite.expect.map((expectation) => checkExpectation({ expectation, runs: replayed, refs }));
  const failed = results.filter((r) => !r.passed).length;
  return { suite: options.label, runs: summaries, results, passed: results.length - failed, failed };
}

/**
 * Which server and tool each name a call used stands for: the configuration's tools (a name the model saw may
 * lack its server prefix), then the origins the replays recorded, else `server/tool` read from the name.
 */
async function toolRefs(toolgate: Toolgate, runs: readonly ReplayedRun[]): Promise<ToolRefs> {
  const known = new Map<string, ToolRef>();
  for (const spec of await toolgate.listTools()) known.set(spec.name, toolRefOf(spec));
  for (const { events } of runs)
    for (const event of events)
      if (event.type === 'tool_call' && event.data.origin !== undefined && !known.has(event.data.name))
        known.set(event.data.name, {
          server: event.data.origin.server,
          tool: event.data.origin.tool,
          exposedName: event.data.name,
        });
  return (name) => {
    const found = known.get(name);
    if (found !== undefined) return found;
    const slash = name.indexOf('/');
    return slash === -1
      ? { server: '', tool: name, exposedName: name }
      : { server: name.slice(0, slash), tool: name.slice(slash + 1), exposedName: name };
  };
}
