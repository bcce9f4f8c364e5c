import type { ServerContext } from '@modelcontextprotocol/server';
import { canonicalJson, draft, isJsonObject, type JsonObject, type JsonValue } from '../core/index.ts';
import type { Gateway } from './gateway.ts';
import type { GatewaySession } from './gateway-session.ts';
import { isLogLevel, sessionLogLevel } from './log-level.ts';

/** Largest `data` of a forwarded (and recorded) log message, as JSON; longer data is cut to a string. */
export const MAX_LOG_DATA_BYTES = 4096;
/** Log messages recorded per session and minute (`upstream_log`); the rest are counted as dropped. */
export const MAX_RECORDED_LOGS_PER_MINUTE = 60;
const MAX_LOGGER_LENGTH = 200;

interface Budget {
  windowStart: number;
  recorded: number;
  dropped: number;
}
const budgets = new WeakMap<GatewaySession, Budget>();

export interface ForwardLogOptions {
  gateway: Gateway;
  session: GatewaySession;
  /** The upstream server's configured name: the forwarded `logger` starts with it. */
  server: string;
  /** MCP `notifications/message` params as the upstream server sent them (untrusted). */
  params: JsonObject;
  /** The client's request in flight, for a client served per request (no persistent connection). */
  ctx?: ServerContext | undefined;
}

/**
 * An upstream server's log message for one session: dropped below the level
 * the session set (or when its level is not valid), `logger` prefixed with
 * the server, `data` bounded, sent to the session's client (its connection,
 * or the request in flight) and recorded in its run as `upstream_log` (at
 * most MAX_RECORDED_LOGS_PER_MINUTE a minute; `dropped` counts the rest).
 * Returns whether it was sent.
 */
export async function forwardLog(options: ForwardLogOptions): Promise<boolean> {
  const { session, server, params } = options;
  const level = params['level'];
  if (!isLogLevel(level)) return false;
  const threshold = sessionLogLevel.get(session);
  if (threshold !== undefined && !sessionLogLevel.passes(level, threshold)) return false;
  const logger = typeof params['logger'] === 'string' ? `${server}/${params['logger']}` : server;
  const data = boundedData(params['data'] ?? null);
  const message = { level, logger: logger.slice(0, MAX_LOGGER_LENGTH), data };
  const notification = { method: 'notifications/message' as const, params: message };
  let sent = false;
  try {
    if (session.peer !== undefined) await session.peer.notification(notification);
    else if (options.ctx !== undefined) await options.ctx.mcpReq.notify(notification);
    sent = session.peer !== undefined || options.ctx !== undefined;
  } catch (error) {
    options.gateway.options.onError?.(`gateway session ${session.key}: a log message could not be sent: ${error}`);
  }
  await record(options, message);
  return sent;
}

async function record(options: ForwardLogOptions, message: { level: string; logger: string; data: JsonValue }) {
  const { session, server } = options;
  const now = Date.now();
  const budget = budgets.get(session) ?? { windowStart: now, recorded: 0, dropped: 0 };
  budgets.set(session, budget);
  if (now - budget.windowStart >= 60_000) {
    budget.windowStart = now;
    budget.recorded = 0;
  }
  if (budget.recorded >= MAX_RECORDED_LOGS_PER_MINUTE || session.run === undefined) {
    budget.dropped += 1;
    return;
  }
  budget.recorded += 1;
  const dropped = budget.dropped;
  budget.dropped = 0;
  const own = message.logger === server ? undefined : message.logger.slice(server.length + 1);
  await session.run
    .record([
      draft('upstream_log', {
        server,
        level: message.level,
        ...(own === undefined ? {} : { logger: own }),
        data: message.data,
        ...(dropped === 0 ? {} : { dropped }),
      }),
    ])
    .catch((error: unknown) =>
      options.gateway.options.onError?.(`gateway session ${session.key}: a log message was not recorded: ${error}`),
    );
}

/** The data as sent, or, when its JSON is longer than MAX_LOG_DATA_BYTES, that JSON cut and marked. */
function boundedData(data: JsonValue | undefined): JsonValue {
  const value = data ?? null;
  const json = canonicalJson(value);
  if (Buffer.byteLength(json) <= MAX_LOG_DATA_BYTES) return value;
  const cut = Buffer.from(json).subarray(0, MAX_LOG_DATA_BYTES).toString('utf8');
  return isJsonObject(value) || Array.isArray(value) || typeof value === 'string' ? `${cut}… (cut)` : null;
}
