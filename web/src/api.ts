// The runs API as the console uses it: toolgate/client on the page's own origin, with the session cookie (never a
// key in the page or a URL) and the CSRF token on every request that may change something.
import type { ForkSettings, RunStatus, RunStrategyLabel, TenantTool, ToolSourceHealth } from '../../src/core/index.ts';
import type { StatsFilter } from '../../src/core/stats.ts';
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

/** An issuer the console may sign in with: a button that navigates to its `url` (GET /v1/auth/login). */
export interface SignInChoice {
  issuer: string;
  url: string;
}

/** GET /v1/session with what the console shows besides the typed fields: roles, issuer, sign-in buttons. */
export type ConsoleSession = SessionInfo & { roles?: string[]; issuer?: string; signIn?: SignInChoice[] };

/** Reads the answer's extra fields, keeping only well-formed ones. */
function consoleSession(info: SessionInfo): ConsoleSession {
  const extra: Record<string, unknown> = { ...info };
  const roles = Array.isArray(extra['roles'])
    ? extra['roles'].filter((r): r is string => typeof r === 'string')
    : undefined;
  const choices = Array.isArray(extra['signIn']) ? extra['signIn'] : [];
  const signIn: SignInChoice[] = [];
  for (const choice of choices) {
    if (typeof choice !== 'object' || choice === null) continue;
    const { issuer, url }: Record<string, unknown> = { ...choice };
    if (typeof issuer === 'string' && typeof url === 'string' && url.startsWith('/v1/auth/login'))
      signIn.push({ issuer, url });
  }
  return {
    ...info,
    ...(roles === undefined ? {} : { roles }),
    ...(typeof extra['issuer'] === 'string' ? { issuer: extra['issuer'] } : {}),
    ...(signIn.length === 0 ? {} : { signIn }),
  };
}

export const api = {
  session: async () => consoleSession(await client.getSession()),
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
  /** GET /v1/stats, narrowed to the dimensions given a value ('' is any). */
  stats: (choice: Partial<Record<keyof StatsFilter, string>>) => {
    const filter: StatsFilter = {};
    for (const key of ['tenant', 'intent', 'strategy', 'model'] as const) {
      const value = choice[key];
      if (value !== undefined && value !== '') filter[key] = value;
    }
    return client.getStats(filter);
  },
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
