import type { JsonObject, Provenance, ToolResult, ToolSource } from '../../core/index.ts';
import type { InjectionContext, Policy } from '../../gate/index.ts';
import type { Validator } from '../../validation/index.ts';
import type { RecordContext } from './call-events.ts';
import type { RunHooks } from '../state/run-options.ts';
import type { ToolCatalog } from './tool-catalog.ts';
import type { PassTrace, ToolTrace } from './tracing.ts';

/** Everything one tool call is handled with: the run, its tools and gate configuration, where its events go. */
export interface ToolCallContext extends RecordContext {
  runId: string;
  tools: ToolSource;
  catalog: ToolCatalog;
  policy: Policy | undefined;
  validator: Validator;
  dryRun: boolean;
  tenantId?: string | undefined;
  userId?: string | undefined;
  /** The roles of the run's caller (RunSettings.roles): the tenant's role rules and `user.roles` in conditions. */
  roles?: readonly string[] | undefined;
  context?: JsonObject | undefined;
  hooks?: RunHooks | undefined;
  signal?: AbortSignal | undefined;
  /** Told of the tool server's progress for this call (a gateway client that asked for progress). */
  onProgress?: ((progress: JsonObject) => void) | undefined;
  toolTimeoutMs?: number | undefined;
  /** Untrusted tool outputs that entered the run before this call's turn: writes then need a person. */
  untrusted?: readonly Provenance[];
  /** The pass's trace: each call gets an `execute_tool` span under it. */
  trace?: PassTrace | undefined;
  /** This call's span (set by executeToolCall). */
  toolTrace?: ToolTrace | undefined;
  /** Runs toolgate's own tools (origin `builtin`, e.g. the todo tools) after the gate let them through. */
  builtin?: ((request: { name: string; arguments: JsonObject; toolCallId: string }) => Promise<ToolResult>) | undefined;
}

/**
 * The values `{{user.*}}`, `{{tenant.*}}` and `{{context.*}}` templates (and conditions) read. `user.roles` is there
 * whenever the run has a user or roles, so a condition such as `"senior" in user.roles` does not fail on its absence.
 */
export function injectionContext(
  ctx: Pick<ToolCallContext, 'userId' | 'tenantId' | 'context' | 'roles'>,
): InjectionContext {
  const roles = ctx.roles === undefined ? undefined : [...ctx.roles];
  const user =
    ctx.userId === undefined && roles === undefined
      ? undefined
      : { ...(ctx.userId === undefined ? {} : { id: ctx.userId }), roles: roles ?? [] };
  return {
    ...(user === undefined ? {} : { user }),
    ...(ctx.tenantId === undefined ? {} : { tenant: { id: ctx.tenantId } }),
    ...(ctx.context === undefined ? {} : { context: ctx.context }),
  };
}
