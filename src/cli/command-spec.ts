/**
 * What a command accepts, written once: the flag parser, `--help`, `toolgate
 * help <command>` and "did you mean" all read it. Spec files import nothing
 * heavy, so help and unknown-flag errors never load a command's implementation.
 */

export interface FlagSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** May be given more than once. */
  multiple?: boolean;
  /** The value's placeholder in help: `--model <provider:model>`. */
  value?: string;
  /** What the flag does, in sentences; shown under the flag. */
  description: string;
  /** A complete example use, e.g. `--model openai:gpt-4o-mini`. */
  example?: string;
}

export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

export interface CommandSpec {
  /** As typed after `toolgate`: `run`, or `runs list` for a subcommand. */
  name: string;
  /** One line, shown in the command list. */
  summary: string;
  /** Usage lines without the leading `toolgate `. */
  usage: readonly string[];
  /** Paragraphs after the usage. */
  details?: string;
  flags: FlagSpecs;
  /** Complete command lines, without the leading `toolgate `. */
  examples: readonly string[];
  subcommands?: readonly CommandSpec[];
}

export const HELP_FLAG: FlagSpec = { type: 'boolean', short: 'h', description: 'Show this help and exit.' };

/** The flag names of a spec, as typed (`--model`, `-m`). */
export function flagNames(flags: FlagSpecs): string[] {
  const names: string[] = [];
  for (const [name, spec] of Object.entries(flags)) {
    names.push(`--${name}`);
    if (spec.short !== undefined) names.push(`-${spec.short}`);
  }
  return names;
}

function flagTitle(name: string, spec: FlagSpec): string {
  const short = spec.short === undefined ? '    ' : `-${spec.short}, `;
  const value = spec.type === 'string' ? ` <${spec.value ?? 'value'}>` : '';
  const repeat = spec.multiple === true ? '  (repeatable)' : '';
  return `  ${short}--${name}${value}${repeat}`;
}

/** The full help of one command: usage, details, every flag with an example, examples. */
export function renderCommandHelp(spec: CommandSpec): string {
  const out: string[] = [`toolgate ${spec.name} — ${spec.summary}`, '', 'Usage:'];
  for (const line of spec.usage) out.push(`  toolgate ${line}`);
  if (spec.details !== undefined) out.push('', ...spec.details.split('\n'));
  if (spec.subcommands !== undefined && spec.subcommands.length > 0) {
    out.push('', 'Commands:');
    const width = Math.max(...spec.subcommands.map((s) => s.name.length));
    for (const sub of spec.subcommands) out.push(`  toolgate ${sub.name.padEnd(width)}  ${sub.summary}`);
    out.push('', `Run "toolgate ${spec.name} <command> --help" for a command's flags.`);
  }
  const flags = { ...spec.flags, help: HELP_FLAG };
  out.push('', 'Flags:');
  for (const [name, flag] of Object.entries(flags)) {
    out.push(flagTitle(name, flag));
    for (const line of flag.description.split('\n')) out.push(`        ${line}`);
    if (flag.example !== undefined) out.push(`        Example: ${flag.example}`);
  }
  if (spec.examples.length > 0) {
    out.push('', 'Examples:');
    for (const example of spec.examples) out.push(`  toolgate ${example}`);
  }
  return `${out.join('\n')}\n`;
}

/** The command list shown by `toolgate help`. */
export function renderOverview(specs: readonly CommandSpec[], header: string): string {
  const width = Math.max(...specs.map((s) => s.name.length));
  const lines = specs.map((s) => `  toolgate ${s.name.padEnd(width)}  ${s.summary}`);
  return (
    `${header}\n\nCommands:\n${lines.join('\n')}\n  toolgate ${'help'.padEnd(width)}  this text; ` +
    (`"toolgate help <command>" explains a command's flags\n  toolgate ${'--version'.padEnd(width)}  ` +
      `print the version\n\nRun "toolgate <command> --help" for every flag of a command, with examples.\n`)
  );
}
