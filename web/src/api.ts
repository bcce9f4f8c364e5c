// The runs API as the console uses it: toolgate/client on the page's own origin, with the session cookie (never a
// key in the page or a URL) and the CSRF token on every request that may change something.
import type { ForkSettings, RunStatus, RunStrategyLabel, TenantTool, ToolSourceHealth } from '../../src/core/index.ts';
import {
  ToolgateApiError,
  ToolgateClient,
  type CreateRunRequest,
  type ListRunsQuery,
  type RunSummary,
  type SessionInfo,
  type SignedIn,
} from '../../src/client/index.ts';

export { ToolgateApiError as ApiError };
export type { CreateRunRequest, RunSummary, SessionInfo, SignedIn };
export type ToolInfo = TenantTool;
export type ServerInfo = ToolSourceHealth;

let csrfToken: string | undefined;

export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

export const client = new ToolgateClient({
  url: location.origin,
  credentials: 'same-origin',
  csrfToken: () => csrfToken,
});

/** The filters of the runs list, as the page's fields hold them. */
export interface RunsFilter {
  status?: RunStatus;
  strategy?: RunStrategyLabel;
  q?: string;
  cursor?: string;
}

const PAGE_SIZE = 50;

export const api = {
  session: () => client.getSession(),
  signIn: (apiKey: string) => client.signIn(apiKey),
  signOut: () => client.signOut(),
  models: () => client.listModels(),
  tools: () => client.listTools(),
  listRuns: (filter: RunsFilter) => {
    const query: ListRunsQuery = { ...filter, limit: PAGE_SIZE };
    return client.listRuns(query);
  },
  getRun: (id: string) => client.getRun(id),
  startRun: (body: CreateRunRequest, idempotencyKey: string) =>
    client.createRun(body, idempotencyKey === '' ? {} : { idempotencyKey }),
  decide: (id: string, decision: Decision) =>
    client.submitInput(id, { type: 'approval', toolCallId: decision.toolCallId, ...decision.body }),
  message: (id: string, text: string) => client.sendMessage(id, text),
  cancel: (id: string, reason: string) => client.cancel(id, reason === '' ? {} : { reason }),
  fork: (id: string, afterEventId: number, settings: ForkSettings) =>
    client.fork(id, Object.keys(settings).length === 0 ? { afterEventId } : { afterEventId, settings }),
};

/** A decision on the call (or plan) waiting: what the approval panel sends. */
export interface Decision {
  toolCallId: string;
  body:
    | { decision: 'approve' | 'mark_done' }
    | { decision: 'reject'; reason?: string }
    | { decision: 'edit'; arguments: Record<string, Json> };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function eventsDownloadUrl(id: string): string {
  return `/v1/runs/${encodeURIComponent(id)}/events?format=jsonl`;
}
