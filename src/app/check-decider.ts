import {
  ToolgateError,
  isJsonObject,
  type Caller,
  type DecisionSource,
  type JsonObject,
  type Run,
  type RunInput,
  type RunStore,
  type ToolSpec,
} from '../core/index.ts';
import { mayDecide, tenantRuleFor, toolRefOf, type Policy, type ToolRef } from '../gate/index.ts';

/**
 * Decisions toolgate makes itself: a decision link is a capability handed to the configured approvers (`link`, and
 * `chat` for its token POSTed by a bot), a timeout is policy. They are not role-checked; no client can set `source`.
 */
const SELF_DECIDED: ReadonlySet<DecisionSource['via']> = new Set(['link', 'chat', 'timeout']);

/**
 * Whether `caller` may decide the approval `input` answers (tenants.<run's tenant>.approvers, plus
 * approvals.escalation.approvers once an `approval_timed_out` with action `escalate` was recorded for the call): the
 * input as it is to be recorded — with `source.roles` when a role check applied — or `forbidden`, before anything is
 * written. A plan waiting as a whole needs a caller who may decide every tool step of it. Input that answers no
 * pending call passes unchanged (recording it reports the conflict).
 */
export async function checkDecider(options: {
  policy: Policy;
  store: Pick<RunStore, 'readEvents'>;
  knownTools: () => Promise<readonly { spec: ToolSpec }[]>;
  escalationApprovers: readonly string[] | undefined;
  run: Run;
  caller: Caller;
  input: RunInput;
}): Promise<RunInput> {
  const { run, caller, input } = options;
  if (input.type !== 'approval' || (input.source !== undefined && SELF_DECIDED.has(input.source.via))) return input;
  const pending = run.pendingApproval;
  if (pending?.toolCallId !== input.toolCallId) return input;
  if (tenantRuleFor(options.policy.tenants, run.tenantId).rule?.approvers === undefined) return input;
  const names = pending.kind === 'plan' ? planTools(pending.arguments) : [pending.name];
  const known = await options.knownTools();
  let escalated: boolean | undefined;
  let applied = false;
  for (const name of names) {
    const tool = refOf(known, name);
    const request = { tenantId: run.tenantId, roles: caller.roles, tool };
    let authority = mayDecide(options.policy, request);
    if (!authority.allowed && (options.escalationApprovers ?? []).length > 0) {
      escalated ??= await wasEscalated(options.store, run.id, pending);
      if (escalated)
        authority = mayDecide(options.policy, { ...request, escalationApprovers: options.escalationApprovers });
    }
    if (!authority.allowed) throw new ToolgateError('forbidden', authority.reason ?? `you may not decide ${name}`);
    if (authority.rule !== undefined) applied = true;
  }
  if (!applied) return input;
  return { ...input, source: { ...input.source, via: input.source?.via ?? 'api', roles: [...(caller.roles ?? [])] } };
}

/** The tools of a plan's steps (the plan approval's arguments: `{planId, steps: [{tool, …}, …]}`). */
function planTools(args: JsonObject): string[] {
  const steps = args['steps'];
  if (!Array.isArray(steps)) return [];
  return steps.flatMap((step) => (isJsonObject(step) && typeof step['tool'] === 'string' ? [step['tool']] : []));
}

/** A tool no server lists cannot be matched against `server/tool` patterns: refused rather than guessed. */
function refOf(known: readonly { spec: ToolSpec }[], name: string): ToolRef {
  const spec = known.find((entry) => entry.spec.name === name)?.spec;
  if (spec !== undefined) return toolRefOf(spec);
  throw new ToolgateError(
    'forbidden',
    `the tool ${name} is not listed by any tool server now, so who may decide its approval cannot be told; ` +
      'decide it once its server lists it again',
  );
}

async function wasEscalated(
  store: Pick<RunStore, 'readEvents'>,
  runId: string,
  pending: { toolCallId: string; eventId: number },
): Promise<boolean> {
  const events = await store.readEvents(runId, { after: pending.eventId });
  return events.some(
    (event) =>
      event.type === 'approval_timed_out' &&
      event.data.toolCallId === pending.toolCallId &&
      event.data.action === 'escalate',
  );
}
