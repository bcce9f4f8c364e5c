// The runs API's client (`toolgate/client`): fetch, TextDecoder and AbortSignal only, so it bundles for browsers.
export { ToolgateClient } from './runs-client.ts';
export {
  ToolgateApiError,
  ToolgateClientError,
  type ApiErrorCode,
  type ClientErrorReason,
  type ToolgateApiErrorOptions,
  type ToolgateClientErrorOptions,
} from './client-error.ts';
export {
  CLIENT_TERMINAL_EVENT_TYPES,
  DEFAULT_MAX_RETRY_DELAY_MS,
  DEFAULT_RETRY_ATTEMPTS,
  DEFAULT_RETRY_DELAY_MS,
  STABLE_CONNECTION_MS,
  type ConnectionChange,
  type FollowEventsOptions,
  type RetryOptions,
} from './follow-events.ts';
export { DEFAULT_SSE_MAX_EVENT_BYTES, readSse, type SseMessage, type SseOptions } from './sse.ts';
export type {
  ArmFigures,
  CancelOptions,
  CreateRunOptions,
  CreateRunRequest,
  DecisionOptions,
  EditOptions,
  FetchFunction,
  ForkOptions,
  LatencyFigures,
  ListRunsQuery,
  MarkDoneOptions,
  OutgoingRequest,
  ReadEventsOptions,
  RequestOptions,
  RolloutFigures,
  RunSummary,
  RunSummaryField,
  RunsPage,
  SessionInfo,
  SignedIn,
  StatsFigures,
  StatsFilter,
  StatsKey,
  StatsRow,
  StatsSnapshot,
  ToolgateClientOptions,
} from './types.ts';
