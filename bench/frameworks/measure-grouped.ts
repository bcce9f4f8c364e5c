// One runner on one workload, measured in a group (process-group.ts): with the
// fetch baseline always, and for a toolgate runner with the loop written on
// undici as well, so that its "× baseline" and "× undici loop" are both taken
// against processes measured in the same moments.
import type { ChildOutcome } from './processes.ts';
import { blocksFor, runGroup, type GroupMember } from './process-group.ts';
import { BASELINE_ID, BASELINE_UNDICI_ID } from './runners-list.ts';
import type { Workload } from './workload.ts';

/** The runners measured with `runner`, started before it in this order: the fetch loop, then the undici loop. */
export function partnersOf(runner: string): string[] {
  if (runner === BASELINE_ID) return [];
  return runner.startsWith('toolgate-') ? [BASELINE_ID, BASELINE_UNDICI_ID] : [BASELINE_ID];
}

/**
 * The runner's outcome with its partners' figures set on it (pairedBaseline, pairedUndici) and the group's order of
 * blocks; a failure of any member fails the runner's, naming the member that went wrong.
 */
export async function measureGrouped(
  member: GroupMember,
  options: { url: string; workload: Workload; timeoutMs: number },
): Promise<ChildOutcome> {
  const members: GroupMember[] = [...partnersOf(member.runner).map((runner) => ({ runner })), member];
  const group = await runGroup({ ...options, members, blocks: blocksFor(options.workload, members.length) });
  const last = members.length - 1;
  // The member that went wrong: named by runGroup, or one whose result says it failed after its blocks.
  const failed = group.failed ?? group.outcomes.findIndex((o) => !o.ok);
  const outcome = group.outcomes[last];
  const base = group.outcomes[0];
  if (failed !== -1 || outcome === undefined || !outcome.ok || base === undefined || !base.ok) {
    const culprit = group.outcomes[failed];
    if (failed === last && culprit !== undefined) return culprit;
    return {
      ok: false,
      runner: member.runner,
      workload: options.workload.id,
      error: `its group's ${members[failed]?.runner ?? 'member'} failed: ${culprit?.ok === false ? culprit.error : ''}`,
    };
  }
  // Among the partners only: the undici loop's own row has none.
  const undici = group.outcomes.slice(0, last).find((o) => o.runner === BASELINE_UNDICI_ID);
  return {
    ...outcome,
    pairedBaseline: {
      wallMs: base.wallMs,
      ...(base.firstTokenMs === undefined ? {} : { firstTokenMs: base.firstTokenMs }),
    },
    ...(undici === undefined || !undici.ok ? {} : { pairedUndici: { wallMs: undici.wallMs, steps: undici.steps } }),
    group: { members: members.map((m) => m.runner), taken: group.taken },
  };
}
