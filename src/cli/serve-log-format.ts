import { isJsonObject } from '../core/index.ts';
/**
 * Readable log lines for a terminal, from the JSON entries pino writes:
 *
 *   12:03:04 INFO  run completed run=run_… tenant=acme steps=3 1234ms
 *
 * Pipes and files get the JSON lines themselves; this is only for people.
 */

/** Fields shown under a shorter name. */
const SHORT_NAMES: Readonly<Record<string, string>> = {
  runId: 'run',
  tenantId: 'tenant',
  requestId: 'req',
  toolCallId: 'call',
};
/** Fields printed last, as `1234ms`. */
const DURATION_FIELDS = ['durationMs', 'latencyMs'];
/** Fields that are a line of their own, indented, so they can be copied whole (a command to paste, a stack). */
const OWN_LINE_FIELDS = ['curl', 'error'];
/** Fields the line already shows in its head, or that a person does not need. */
const HIDDEN_FIELDS = new Set(['level', 'time', 'msg', 'pid', 'hostname', ...DURATION_FIELDS, ...OWN_LINE_FIELDS]);

const LEVEL_COLOR: Readonly<Record<string, number>> = {
  fatal: 35,
  error: 31,
  warn: 33,
  info: 32,
  debug: 36,
  trace: 90,
};

export interface FormatOptions {
  color: boolean;
}

/** One entry → one line (plus indented lines for `curl` and `error`), ending in a newline. */
export function formatLogLine(entry: Readonly<Record<string, unknown>>, options: FormatOptions): string {
  const level = typeof entry['level'] === 'string' ? entry['level'] : 'info';
  const label = level.toUpperCase().padEnd(5);
  const head =
    `${clock(entry['time'])} ${options.color ? `\u001b[${LEVEL_COLOR[level] ?? 39}m${label}\u001b[39m` : label} ` +
    `${String(entry['msg'] ?? '')}`;
  const fields = Object.entries(entry)
    .filter(([key, value]) => !HIDDEN_FIELDS.has(key) && value !== undefined)
    .map(([key, value]) => `${SHORT_NAMES[key] ?? key}=${fieldValue(value)}`);
  const durations = DURATION_FIELDS.filter((key) => typeof entry[key] === 'number').map(
    (key) => `${String(entry[key])}ms`,
  );
  const own = OWN_LINE_FIELDS.filter((key) => entry[key] !== undefined).map((key) => indent(String(entry[key])));
  return `${[head, ...fields, ...durations].join(' ')}\n${own.map((line) => `${line}\n`).join('')}`;
}

/** A pino destination that writes each entry as a readable line. */
export function prettyDestination(options: FormatOptions & { write: (text: string) => unknown }): {
  write(line: string): void;
} {
  return {
    write(line) {
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        options.write(line);
        return;
      }
      options.write(isJsonObject(entry) ? formatLogLine(entry, options) : line);
    },
  };
}

/** `HH:MM:SS` in local time: a person reads the terminal where they are. */
function clock(time: unknown): string {
  const date = typeof time === 'string' || typeof time === 'number' ? new Date(time) : new Date();
  const valid = Number.isNaN(date.getTime()) ? new Date() : date;
  return [valid.getHours(), valid.getMinutes(), valid.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

function fieldValue(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return /^[^\s"=]+$/.test(text) ? text : JSON.stringify(text);
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
