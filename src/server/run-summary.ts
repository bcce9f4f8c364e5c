import { ToolgateError } from '../core/errors.ts';
import { isOneOf } from '../core/is-one-of.ts';
import { runStrategy } from '../core/run-filter.ts';
import type { Run } from '../core/runs.ts';

/** Characters of `input`, `output` and an error message kept in a summary. */
export const SUMMARY_TEXT_LIMIT = 200;

/**
 * Fields `GET /v1/runs?fields=` may name. `context` is only on `GET /v1/runs/{id}`;
 * `strategy` is the run's `settings.strategy` (absent on runs stored before settings were kept).
 */
export const SUMMARY_FIELDS = [
  'id',
  'status',
  'model',
  'strategy',
  'createdAt',
  'updatedAt',
  'tenantId',
  'userId',
  'threadId',
  'input',
  'output',
  'error',
  'usage',
  'steps',
  'lastEventId',
  'dryRun',
  'pendingApproval',
  'metadata',
] as const;
export type SummaryField = (typeof SUMMARY_FIELDS)[number];

/** Without `fields=`: everything but `metadata` (which can be as large as a request body). */
export const DEFAULT_SUMMARY_FIELDS: readonly SummaryField[] = SUMMARY_FIELDS.filter((f) => f !== 'metadata');

export type RunSummary = { [K in SummaryField]?: unknown } & { truncated?: string[] };

/** `fields=status,input` → the fields, `id` always among them. */
export function parseFields(value: string | undefined): readonly SummaryField[] {
  if (value === undefined) return DEFAULT_SUMMARY_FIELDS;
  const names = value
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  const unknown = names.filter((f) => !isOneOf(SUMMARY_FIELDS, f));
  if (names.length === 0 || unknown.length > 0) {
    throw new ToolgateError(
      'usage',
      `fields must be a comma-separated list of ` +
        `${SUMMARY_FIELDS.join(', ')}${unknown.length > 0 ? `; unknown: ${unknown.slice(0, 5).join(', ')}` : ''}`,
    );
  }
  return ['id', ...names.filter((f) => isOneOf(SUMMARY_FIELDS, f) && f !== 'id')];
}

/**
 * A run as a list shows it: long texts cut to SUMMARY_TEXT_LIMIT characters
 * (named in `truncated`), the pending call without its arguments. A page of
 * runs stays small whatever the runs hold; GET /v1/runs/{id} has it all.
 */
export function summarizeRun(run: Run, fields: readonly SummaryField[]): RunSummary {
  const out: RunSummary = {};
  const truncated: string[] = [];
  const cut = (name: string, text: string): string => {
    if (text.length <= SUMMARY_TEXT_LIMIT) return text;
    truncated.push(name);
    return `${text.slice(0, SUMMARY_TEXT_LIMIT)}…`;
  };
  for (const field of fields) {
    const value = field === 'strategy' ? runStrategy(run) : run[field];
    if (value === undefined) continue;
    if ((field === 'input' || field === 'output') && typeof value === 'string') out[field] = cut(field, value);
    else if (field === 'error' && run.error !== undefined)
      out.error = { code: run.error.code, message: cut('error', run.error.message) };
    else if (field === 'pendingApproval' && run.pendingApproval !== undefined) {
      const { arguments: _args, ...rest } = run.pendingApproval;
      out.pendingApproval = rest;
    } else out[field] = value;
  }
  if (truncated.length > 0) out.truncated = truncated;
  return out;
}
