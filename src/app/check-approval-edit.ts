import { ToolgateError } from '../core/errors.ts';
import type { RunInput } from '../core/events.ts';
import type { Run } from '../core/runs.ts';
import { approvalView, resolveToolPolicy, type Policy } from '../gate/index.ts';
import type { ToolSpec } from '../core/tools.ts';
import type { Validator } from '../validation/index.ts';

/** At most this many issues are listed in the refusal. */
const MAX_LISTED_ISSUES = 8;

/**
 * A person's edit to a call waiting for approval is checked when it is sent,
 * the way the gate will check it when the call runs (the gate's approvalView:
 * normalised, then against the schema without the injected arguments, which
 * the server fills in): an
 * edit that cannot run is refused as a 400 and the call keeps waiting, rather
 * than being recorded and then failing as `invalid_arguments`.
 */
export function checkApprovalEdit(options: {
  run: Run;
  input: RunInput;
  tools: readonly ToolSpec[];
  policy: Policy;
  validator: Validator;
}): void {
  const { run, input } = options;
  if (input.type !== 'approval' || input.decision !== 'edit' || input.arguments === undefined) return;
  const pending = run.pendingApproval;
  // Whether the decision applies at all (no pending call, another call, a plan) is the engine's to say.
  if (pending === undefined || pending.kind === 'plan' || pending.toolCallId !== input.toolCallId) return;
  const spec = options.tools.find((tool) => tool.name === pending.name);
  if (spec === undefined) return;
  const view = approvalView({ tool: spec, inject: resolveToolPolicy(options.policy, spec, spec.name).inject });
  const issues = view.checkEdit(input.arguments, options.validator);
  if (issues.length === 0) return;
  const listed = issues
    .slice(0, MAX_LISTED_ISSUES)
    .map((issue) => `${issue.path === '' ? '(arguments)' : issue.path.slice(1).replace(/\//g, '.')}: ${issue.message}`);
  const more = issues.length > MAX_LISTED_ISSUES ? `; and ${issues.length - MAX_LISTED_ISSUES} more` : '';
  throw new ToolgateError(
    'usage',
    `the edited arguments for ${pending.name} do not match its input schema — ${listed.join('; ')}${more}. ` +
      (`Nothing was recorded: ${pending.toolCallId} still waits; ` +
        `send a corrected edit, approve it as proposed, or reject it`),
    { details: { issues } },
  );
}
