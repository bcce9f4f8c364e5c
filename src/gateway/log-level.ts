import type { GatewaySession } from './gateway-session.ts';

/** MCP's log levels (RFC 5424), least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const levels = new WeakMap<GatewaySession, LogLevel>();

/** Whether `value` is one of MCP's eight log levels. */
export function isLogLevel(value: unknown): value is LogLevel {
  return LOG_LEVELS.some((level) => level === value);
}

/**
 * The log level a session's client set (`logging/setLevel`), kept with the
 * session and gone with it; `set` stores a new one.
 */
export const sessionLogLevel = {
  get: (session: GatewaySession): LogLevel | undefined => levels.get(session),
  set: (session: GatewaySession, level: LogLevel): void => void levels.set(session, level),
  /** Whether a message at `level` reaches a client whose threshold is `threshold`. */
  passes: (level: LogLevel, threshold: LogLevel): boolean => LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold),
};
