import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ToolgateError, didYouMean, describeError } from '../core/index.ts';
import { flagNames, type CommandSpec } from './command-spec.ts';

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

/**
 * node:util parseArgs over a command's spec. Unknown flags are refused first,
 * naming the closest known one; parseArgs' own errors become usage errors
 * that name the flag.
 */
export function parseFlags(
  args: readonly string[],
  spec: CommandSpec,
): { values: Record<string, unknown>; positionals: string[] } {
  checkFlagNames(args, spec);
  const options: Options = {};
  for (const [name, flag] of Object.entries(spec.flags)) {
    options[name] = {
      type: flag.type,
      ...(flag.short === undefined ? {} : { short: flag.short }),
      ...(flag.multiple === true ? { multiple: true } : {}),
    };
  }
  try {
    const parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
    return { values: parsed.values, positionals: parsed.positionals };
  } catch (error) {
    const message = describeError(error);
    throw usageError(
      `${message.replace(/\. To specify a positional argument.*$/s, '')} (see "toolgate ${spec.name} --help")`,
    );
  }
}

/** Refuses a flag the command does not have: `unknown flag --modle for toolgate run — did you mean --model?`. */
function checkFlagNames(args: readonly string[], spec: CommandSpec): void {
  const shorts = new Map(
    Object.entries(spec.flags).flatMap(([name, f]) => (f.short === undefined ? [] : [[f.short, name] as const])),
  );
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') return;
    let name: string | undefined;
    if (arg.startsWith('--')) {
      name = arg.slice(2).split('=')[0] ?? '';
      if (name in spec.flags) {
        if (spec.flags[name]?.type === 'string' && !arg.includes('=')) i++;
        continue;
      }
    } else if (arg.startsWith('-') && arg.length > 1 && !/^-\d/.test(arg)) {
      const long = shorts.get(arg.charAt(1));
      if (long !== undefined) {
        if (spec.flags[long]?.type === 'string' && arg.length === 2) i++;
        continue;
      }
      name = arg.slice(1);
    } else {
      continue;
    }
    const known = flagNames(spec.flags);
    const hint = didYouMean(`--${name}`, known, (s) => s);
    throw usageError(
      `unknown flag ${arg.split('=')[0] ?? arg} for toolgate ${spec.name}${hint}\n` +
        `  Every flag: toolgate ${spec.name} --help. (An argument that starts with "-" goes after "--".)`,
    );
  }
}

export function optionalString(values: Record<string, unknown>, key: string): string | undefined {
  const v = values[key];
  return typeof v === 'string' ? v : undefined;
}

/** A flag given several times (`multiple: true`): its values, in order; none when it is absent. */
export function stringList(values: Record<string, unknown>, key: string): string[] {
  const v = values[key];
  return Array.isArray(v) ? v.filter((item) => typeof item === 'string') : [];
}

export function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw usageError(`${flag} must be a positive integer, got "${value}"`);
  return n;
}
