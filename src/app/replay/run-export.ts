import {
  RUN_EVENT_TYPES,
  RUN_STATUSES,
  ToolgateError,
  describeError,
  isJsonObject,
  type Run,
  type RunEvent,
} from '../../core/index.ts';
import type { RecordedRun } from './recorded-run.ts';

/** The format version of `toolgate runs export` (the first line of each run: `{"toolgateExport": 1, "run": …}`). */
export const EXPORT_VERSION = 1;

const STATUSES: ReadonlySet<string> = new Set(RUN_STATUSES);
const EVENT_TYPES: ReadonlySet<string> = new Set(RUN_EVENT_TYPES);

/**
 * A run and its log as JSONL (`toolgate runs export`): a header line `{"toolgateExport": 1, "run": <Run>}`, then one
 * event per line exactly as stored. Several runs are written one after the other; each line ends with a newline.
 */
export function exportLines(recorded: RecordedRun): string {
  const lines = [JSON.stringify({ toolgateExport: EXPORT_VERSION, run: recorded.run })];
  for (const event of recorded.events) lines.push(JSON.stringify(event));
  return `${lines.join('\n')}\n`;
}

/**
 * The runs of an export (exportLines, concatenated), checked line by line: a header starts a run, the events after it
 * belong to it (its run id, numbered 1, 2, 3… without a gap, a known event type). Blank lines are skipped. A bad line
 * is refused with its line number (`usage`); `source` names the file in the message.
 */
export function readExport(text: string, source = 'the export'): RecordedRun[] {
  const runs: RecordedRun[] = [];
  let current: RecordedRun | undefined;
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const at = `${source}, line ${index + 1}`;
    const value = parseLine(line, at);
    if (isJsonObject(value) && 'toolgateExport' in value) {
      current = { run: headerRun(value, at), events: [] };
      runs.push(current);
      continue;
    }
    if (current === undefined)
      throw bad(at, 'an event before any run header; an export starts with {"toolgateExport": 1, "run": {…}}');
    current.events.push(eventOf(value, { at, run: current }));
  }
  if (runs.length === 0)
    throw bad(source, 'no run in it (an export has a {"toolgateExport": 1, "run": {…}} line per run)');
  return runs;
}

/** One line's JSON; not JSON → `usage` naming `at` (a file and line). */
export function parseLine(line: string, at: string): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    throw bad(at, `not JSON (${describeError(error)})`);
  }
}

/** The run of a header line (`{"toolgateExport": 1, "run": …}`), checked. */
export function headerRun(value: Record<string, unknown>, at: string): Run {
  if (value['toolgateExport'] !== EXPORT_VERSION)
    throw bad(
      at,
      `export version ${JSON.stringify(value['toolgateExport'])} is not one this toolgate reads (${EXPORT_VERSION})`,
    );
  const run = value['run'];
  if (!isRun(run))
    throw bad(at, 'the header\'s "run" is not a run (it needs id, status, input, model, usage, steps, lastEventId)');
  return run;
}

function isRun(value: unknown): value is Run {
  return (
    isJsonObject(value) &&
    typeof value['id'] === 'string' &&
    value['id'] !== '' &&
    typeof value['status'] === 'string' &&
    STATUSES.has(value['status']) &&
    typeof value['input'] === 'string' &&
    typeof value['model'] === 'string' &&
    isJsonObject(value['usage']) &&
    typeof value['steps'] === 'number' &&
    typeof value['lastEventId'] === 'number'
  );
}

function isEvent(value: unknown): value is RunEvent {
  return (
    isJsonObject(value) &&
    Number.isSafeInteger(value['id']) &&
    typeof value['runId'] === 'string' &&
    typeof value['type'] === 'string' &&
    EVENT_TYPES.has(value['type']) &&
    typeof value['time'] === 'string' &&
    isJsonObject(value['data'])
  );
}

/** An event line of `run`, checked: its run id, the next id, a known type. */
export function eventOf(value: unknown, options: { at: string; run: RecordedRun }): RunEvent {
  const { at, run } = options;
  if (!isEvent(value)) {
    const type = isJsonObject(value) ? value['type'] : undefined;
    const known = typeof type !== 'string' || EVENT_TYPES.has(type) ? '' : ` (unknown event type "${type}")`;
    throw bad(at, `not a run event${known}: an event has id, runId, type, time and data`);
  }
  if (value.runId !== run.run.id) throw bad(at, `an event of run ${value.runId} under the header of run ${run.run.id}`);
  const expected = run.events.length + 1;
  if (value.id !== expected)
    throw bad(at, `event id ${value.id} where ${expected} comes next (a log is numbered 1, 2, 3… without a gap)`);
  return value;
}

function bad(at: string, message: string): ToolgateError {
  return new ToolgateError('usage', `${at}: ${message}`);
}
