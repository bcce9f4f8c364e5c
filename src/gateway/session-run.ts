import {
  ToolgateError,
  draft,
  type ClaimOptions,
  type EventDraft,
  type GatewaySessionSettings,
  type NewRun,
  type Run,
  type RunEvent,
  type RunLease,
  type RunSettings,
  type RunStore,
  type ToolSource,
} from '../core/index.ts';
import type { Policy } from '../gate/index.ts';
import type { RunHooks } from '../orchestrator/state/run-options.ts';
import type { Validator } from '../validation/index.ts';

/** The model a gateway session's run names: its calls come from an MCP client, not a model toolgate asks. */
export const SESSION_MODEL = 'mcp-client';

/** What a gateway brings to every session: the same adapters and gate configuration runs get. */
export interface GatewayEnvironment {
  tools: ToolSource;
  policy: Policy;
  validator: Validator;
  hooks?: RunHooks | undefined;
  redact?: readonly string[] | undefined;
  toolTimeoutMs?: number | undefined;
}

export interface GatewayRunOptions {
  store: RunStore;
  /** The lease owner: unique per gateway process. */
  owner: string;
  leaseMs: number;
  environment: GatewayEnvironment;
  tenantId?: string | undefined;
  userId?: string | undefined;
  /** The session caller's roles, recorded in the run's settings (RunSettings.roles). */
  roles?: readonly string[] | undefined;
  session: GatewaySessionSettings;
  /** A held call with no decision after this long is refused. */
  approvalTimeoutMs: number;
  /** The tools the client is offered when the session starts (run_started). */
  toolNames: readonly string[];
  /** Told of the events this session appends (metrics, logs). */
  onEvents?: ((events: readonly RunEvent[]) => void) | undefined;
}

/**
 * Creates a gateway session's run and takes its lease, in one write where the
 * store can (a queued run with no lease is what another process's recovery
 * claims); `start`: the events that record its start.
 */
export async function openSessionRun(
  options: GatewayRunOptions,
): Promise<{ run: Run; lease: RunLease; start: EventDraft[] }> {
  const { store, session } = options;
  const client =
    session.client === undefined
      ? 'an MCP client'
      : `${session.client.name}${session.client.version === undefined ? '' : ` ${session.client.version}`}`;
  const input = `MCP gateway session: ${client} over ${session.transport}`;
  const settings: RunSettings = {
    maxSteps: 0,
    strategy: 'react',
    toolMode: 'native',
    parseRetries: 0,
    textToolCalls: 'never',
    constrain: false,
    stream: false,
    gateway: session,
    ...(options.roles === undefined || options.roles.length === 0 ? {} : { roles: [...options.roles] }),
  };
  const init: NewRun = {
    input,
    model: SESSION_MODEL,
    settings,
    dryRun: session.dryRun,
    metadata: { gateway: true },
    ...(options.tenantId === undefined ? {} : { tenantId: options.tenantId }),
    ...(options.userId === undefined ? {} : { userId: options.userId }),
  };
  const claim = { owner: options.owner, ttlMs: options.leaseMs };
  const { run, lease } =
    store.createAndClaimRun === undefined
      ? await createThenClaim(store, init, claim)
      : await store.createAndClaimRun(init, claim);
  if (lease === undefined)
    throw new ToolgateError('internal', `could not take the lease of the new gateway session run ${run.id}`);
  const start = [
    draft('run_started', {
      input,
      model: SESSION_MODEL,
      tools: [...options.toolNames],
      maxSteps: 0,
      strategy: 'gateway',
      dryRun: session.dryRun,
    }),
    draft('run_status', { from: 'queued', to: 'running', reason: 'an MCP client connected' }),
  ];
  return { run, lease, start };
}

async function createThenClaim(
  store: RunStore,
  init: NewRun,
  claim: ClaimOptions,
): Promise<{ run: Run; lease: RunLease | undefined }> {
  const run = await store.createRun(init);
  return { run, lease: await store.claimRun(run.id, claim) };
}
