import { pino, type Logger } from 'pino';
import { usageError, type CliIO } from './cli-io.ts';
import { prettyDestination } from './serve-log-format.ts';
import { isOneOf } from '../core/is-one-of.ts';

/** pino's levels, most severe first. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';
export const LOG_LEVEL_ENV = 'TOOLGATE_LOG_LEVEL';

/** `--log-level` over TOOLGATE_LOG_LEVEL over `info`; anything else is a usage error naming the levels. */
export function resolveLogLevel(options: {
  flag: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
}): LogLevel {
  const fromEnv = options.env[LOG_LEVEL_ENV];
  const [value, source] =
    options.flag !== undefined
      ? [options.flag, '--log-level']
      : fromEnv !== undefined && fromEnv !== ''
        ? [fromEnv, LOG_LEVEL_ENV]
        : [DEFAULT_LOG_LEVEL, ''];
  const level = value.trim().toLowerCase();
  if (isLogLevel(level)) return level;
  throw usageError(`${source} must be one of ${LOG_LEVELS.join(', ')}; got "${value}"`);
}

function isLogLevel(value: string): value is LogLevel {
  return isOneOf(LOG_LEVELS, value);
}

/**
 * The server's logger, on stderr: JSON lines (level names, ISO times) where
 * stderr is a pipe or a file, readable lines on a terminal. Entries carry ids,
 * counts and durations only: never keys, headers, run inputs or tool arguments.
 */
export function createServeLogger(options: { io: CliIO; level: LogLevel }): Logger {
  const { io } = options;
  const write = (text: string) => io.stderr.write(text);
  const destination =
    io.stderr.isTTY === true ? prettyDestination({ color: io.env['NO_COLOR'] === undefined, write }) : { write };
  return pino(
    {
      level: options.level,
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}
