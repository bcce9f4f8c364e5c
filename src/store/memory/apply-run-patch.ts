import type { Run, RunPatch } from '../../core/index.ts';

/**
 * A patch applied to MemoryRunStore's own row: the fields it sets, in the
 * patch's order (a field the row did not have yet is added last, as JSON
 * shows it); null takes a pending approval away.
 */
export function applyRunPatch(run: Run, patch: RunPatch): void {
  for (const key of Object.keys(patch)) {
    if (key === 'status' && patch.status !== undefined) run.status = patch.status;
    else if (key === 'output' && patch.output !== undefined) run.output = patch.output;
    else if (key === 'error' && patch.error !== undefined) run.error = patch.error;
    else if (key === 'usage' && patch.usage !== undefined) run.usage = patch.usage;
    else if (key === 'steps' && patch.steps !== undefined) run.steps = patch.steps;
    else if (key === 'pendingApproval') {
      if (patch.pendingApproval === null) delete run.pendingApproval;
      else if (patch.pendingApproval !== undefined) run.pendingApproval = patch.pendingApproval;
    }
  }
}
