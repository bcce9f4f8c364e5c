import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ToolgateError } from '../core/index.ts';

export const EXIT = { ok: 0, failed: 1, usage: 2, waiting: 3 } as const;

/** Where a command writes; injectable so tests run commands in-process. */
export interface CliIO {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  /** For interactive approvals; only used when it is a terminal. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Aborted on Ctrl-C. */
  signal?: AbortSignal;
}

export function usageError(message: string): ToolgateError {
  return new ToolgateError('usage', message);
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** node:util parseArgs, with its errors turned into usage errors that name the flag. */
export function parseFlags<T extends Options>(args: readonly string[], options: T): { values: Record<string, unknown>; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
    return { values: parsed.values as Record<string, unknown>, positionals: parsed.positionals };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw usageError(message.replace(/\. To specify a positional argument.*$/s, ''));
  }
}

export function optionalString(values: Record<string, unknown>, key: string): string | undefined {
  const v = values[key];
  return typeof v === 'string' ? v : undefined;
}

export function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw usageError(`${flag} must be a positive integer, got "${value}"`);
  return n;
}
