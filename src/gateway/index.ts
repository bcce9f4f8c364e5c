export {
  DEFAULT_APPROVAL_TIMEOUT_MS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_MS,
  Gateway,
  type GatewayOptions,
} from './gateway.ts';
export type { GatewayIdentity } from './gateway-session.ts';
export { defaultMaxSessionsPerKey, defaultMaxSessionsPerTenant } from './session-shares.ts';
export { DRY_RUN_HEADER, GatewayHttp, SESSION_HEADER } from './http-transport.ts';
export { DEFAULT_MAX_RESULT_BYTES } from './limit-result.ts';
export { limitedTools } from './limited-tools.ts';
export { RateLimiter, type RateLimit, type RateLimits } from './rate-limiter.ts';
export { RUN_ID_META_KEY, TOOL_CALL_ID_META_KEY } from './call-tool.ts';
export { serveGatewayStdio } from './stdio-face.ts';
export { endpointAt, endpointRefusal, type GatewayEndpoint, type GatewayEndpoints } from './endpoints.ts';
export { checkToolPins } from './tool-pins.ts';
export { gatewaySessionRuns, sweepLostGatewaySessions } from './gateway-recovery.ts';
export { DEFAULT_SAMPLING, type SamplingDecision } from './upstream-requests.ts';
