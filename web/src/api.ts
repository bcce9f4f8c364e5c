// The runs API as the console uses it: same origin, the session cookie (never a
// key in the page or a URL), and the CSRF token on every post.
import type { RunEvent } from '../../src/core/events.ts';
import type { Run } from '../../src/core/runs.ts';

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly issues: unknown;
  constructor(options: { status: number; code: string; message: string; issues?: unknown }) {
    super(options.message);
    this.status = options.status;
    this.code = options.code;
    this.issues = options.issues;
  }
}

export interface SessionInfo {
  authenticated: boolean;
  keysRequired: boolean;
  anonymous?: boolean;
  tenantId?: string;
  userId?: string;
  csrfToken?: string;
  expiresAt?: string;
}

export interface ToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  effect: 'read' | 'write';
  approval?: string;
  injected?: string[];
  untrusted?: boolean;
  origin?: { server?: string; name?: string } | string;
  available: boolean;
}

export interface ServerInfo {
  name: string;
  state: string;
  tools: number;
  error?: string;
  since: string;
  failures: number;
  retryAt?: string;
}

export interface RunSummary {
  id: string;
  status: string;
  model?: string;
  strategy?: string;
  createdAt?: string;
  updatedAt?: string;
  tenantId?: string;
  userId?: string;
  threadId?: string;
  input?: string;
  output?: string;
  error?: { code: string; message: string };
  steps?: number;
  dryRun?: boolean;
  pendingApproval?: { toolCallId: string; name: string };
}

let csrfToken: string | undefined;

export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

async function call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { Accept: 'application/json', ...headers } };
  if (method !== 'GET' && csrfToken !== undefined) (init.headers as Record<string, string>)['X-CSRF-Token'] = csrfToken;
  if (body !== undefined) {
    (init.headers as Record<string, string>)['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const error = (parsed as { error?: { code?: string; message?: string; issues?: unknown } } | undefined)?.error;
    throw new ApiError({
      status: res.status,
      code: error?.code ?? 'http_error',
      message: error?.message ?? `${res.status} ${res.statusText}`,
      issues: error?.issues,
    });
  }
  return parsed as T;
}

export const api = {
  session: () => call<SessionInfo>('GET', '/v1/session'),
  signIn: (apiKey: string) => call<SessionInfo>('POST', '/v1/session', { apiKey }),
  signOut: () => call<void>('DELETE', '/v1/session'),
  models: () => call<{ default?: string; models: string[] }>('GET', '/v1/models'),
  tools: () => call<{ tools: ToolInfo[]; servers: ServerInfo[] }>('GET', '/v1/tools'),
  listRuns: (query: Record<string, string>) =>
    call<{ runs: RunSummary[]; nextCursor?: string }>('GET', `/v1/runs?${new URLSearchParams(query).toString()}`),
  getRun: (id: string) => call<Run>('GET', `/v1/runs/${encodeURIComponent(id)}`),
  events: (id: string, after: number) =>
    call<{ events: RunEvent[] }>('GET', `/v1/runs/${encodeURIComponent(id)}/events?format=json&after=${after}`),
  startRun: (body: Record<string, unknown>, idempotencyKey: string) =>
    call<Run>('POST', '/v1/runs', body, idempotencyKey === '' ? {} : { 'Idempotency-Key': idempotencyKey }),
  input: (id: string, body: Record<string, unknown>) =>
    call<Run>('POST', `/v1/runs/${encodeURIComponent(id)}/input`, body),
  cancel: (id: string, reason: string) =>
    call<Run>('POST', `/v1/runs/${encodeURIComponent(id)}/cancel`, reason === '' ? {} : { reason }),
};

export function eventsDownloadUrl(id: string): string {
  return `/v1/runs/${encodeURIComponent(id)}/events?format=jsonl`;
}
