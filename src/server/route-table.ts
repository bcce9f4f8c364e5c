import type { Route } from './router.ts';
import { getApprovalLink, postApprovalLink } from './routes/approvals.ts';
import { getRunEvents } from './routes/events.ts';
import {
  mcpEndpointProtectedResourceMetadata,
  mcpProtectedResourceMetadata,
  protectedResourceMetadata,
} from './oidc/metadata-route.ts';
import { chatCompletions } from './routes/chat-completions.ts';
import { healthz, listModels, listTools, metrics, openApi, readyz } from './routes/misc.ts';
import { cancelRun, createRun, forkRun, getRun, listRuns, submitInput } from './routes/runs.ts';
import { getSession, signIn, signOut } from './routes/session.ts';
import { getStats } from './routes/stats.ts';
import { finishLogin, startLogin } from './routes/oidc-login.ts';
import { getUiChatStream, postUiChat } from './routes/ui-chat.ts';
import type { RouteHandler } from './server-context.ts';

/** Every endpoint of the runs API. openapi.ts describes each one (a test keeps them in step). */
export const ROUTES: readonly Route<RouteHandler>[] = [
  { method: 'POST', path: '/v1/runs', auth: true, handler: createRun },
  { method: 'GET', path: '/v1/runs', auth: true, handler: listRuns },
  { method: 'GET', path: '/v1/runs/{id}', auth: true, handler: getRun },
  { method: 'GET', path: '/v1/runs/{id}/events', auth: true, handler: getRunEvents },
  { method: 'POST', path: '/v1/runs/{id}/input', auth: true, handler: submitInput },
  { method: 'POST', path: '/v1/runs/{id}/cancel', auth: true, handler: cancelRun },
  { method: 'POST', path: '/v1/runs/{id}/fork', auth: true, handler: forkRun },
  { method: 'GET', path: '/v1/tools', auth: true, handler: listTools },
  { method: 'GET', path: '/v1/models', auth: true, handler: listModels },
  // Live outcome statistics over a sliding window; a tenant's caller sees its own runs only.
  { method: 'GET', path: '/v1/stats', auth: true, handler: getStats },
  // OpenAI-compatible: its errors come in OpenAI's shape, so the official SDKs raise their own error types.
  { method: 'POST', path: '/v1/chat/completions', auth: true, errorShape: 'openai', handler: chatCompletions },
  // The AI SDK's UI message stream (useChat with DefaultChatTransport); the chat id is the runs' threadId.
  { method: 'POST', path: '/v1/ui/chat', auth: true, handler: postUiChat },
  { method: 'GET', path: '/v1/ui/chat/{chatId}/stream', auth: true, handler: getUiChatStream },
  // Sign-in checks the key itself; GET answers whether the request is signed in, never 401.
  { method: 'POST', path: '/v1/session', auth: false, handler: signIn },
  { method: 'GET', path: '/v1/session', auth: false, handler: getSession },
  { method: 'DELETE', path: '/v1/session', auth: false, handler: signOut },
  // Console sign-in with an OpenID issuer (authorization code + PKCE): browser navigations that answer with redirects.
  { method: 'GET', path: '/v1/auth/login', auth: false, handler: startLogin },
  { method: 'GET', path: '/v1/auth/callback', auth: false, handler: finishLogin },
  // Decision links: the token in the path is the capability (docs/approvals.md#decision-links); GET never decides.
  { method: 'GET', path: '/v1/approvals/{token}', auth: false, handler: getApprovalLink },
  { method: 'POST', path: '/v1/approvals/{token}', auth: false, handler: postApprovalLink },
  { method: 'GET', path: '/healthz', auth: false, handler: healthz },
  { method: 'GET', path: '/readyz', auth: false, handler: readyz },
  // Load balancers and uptime checks often probe with HEAD: the GET's status and headers, no body (Node leaves it out).
  { method: 'HEAD', path: '/healthz', auth: false, handler: healthz },
  { method: 'HEAD', path: '/readyz', auth: false, handler: readyz },
  { method: 'GET', path: '/openapi.json', auth: false, handler: openApi },
  // OAuth Protected Resource Metadata (RFC 9728): where MCP clients find the issuers of accepted tokens.
  { method: 'GET', path: '/.well-known/oauth-protected-resource', auth: false, handler: protectedResourceMetadata },
  {
    method: 'GET',
    path: '/.well-known/oauth-protected-resource/mcp',
    auth: false,
    handler: mcpProtectedResourceMetadata,
  },
  {
    method: 'GET',
    path: '/.well-known/oauth-protected-resource/mcp/{endpoint}',
    auth: false,
    handler: mcpEndpointProtectedResourceMetadata,
  },
  { method: 'GET', path: '/metrics', auth: true, handler: metrics },
];
