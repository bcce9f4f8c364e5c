import { describePatternFinding, findUnmatchedToolPatterns } from '../app/tool-pattern-check.ts';
import type { Toolgate } from '../app/toolgate.ts';
import type { Settings } from '../config/resolve-settings.ts';
import type { PatternFinding } from '../app/tool-pattern-check.ts';
import { ToolgateError } from '../core/index.ts';

export interface ReportToolPatternsOptions {
  toolgate: Toolgate;
  /** The settings as resolved from the config (the gateway's rate limits included). */
  settings: Settings;
  /** `--strict`; `policy.strict` in the config counts too. */
  strict: boolean;
  /** Says one finding (a log line, a line on stderr). */
  warn: (text: string, finding: PatternFinding) => void;
}

/**
 * Warns about every tool pattern of the config that names no tool (or cannot
 * be checked yet); with --strict or policy.strict, one that names no tool is a
 * configuration error (exit 2) listing them. Runs once the servers have listed.
 */
export async function reportToolPatterns(options: ReportToolPatternsOptions): Promise<void> {
  const findings = await findUnmatchedToolPatterns(options.toolgate, options.settings);
  const strict = options.strict || options.settings.policyStrict === true;
  const wrong: PatternFinding[] = strict ? findings.filter((f) => f.kind === 'matches_nothing') : [];
  // What stops the command is said once, in the error; the rest are warnings.
  for (const finding of findings) if (!wrong.includes(finding)) options.warn(describePatternFinding(finding), finding);
  if (wrong.length === 0) return;
  const source = options.strict ? '--strict' : 'policy.strict: true';
  throw new ToolgateError(
    'config_invalid',
    `${wrong.length === 1 ? 'a tool pattern matches' : `${wrong.length} tool patterns match`} no tool ` +
      (`(${source}):\n${wrong.map((f) => `  - ${describePatternFinding(f)}`).join('\n')}\nFix ` +
        `${wrong.length === 1 ? 'it' : 'them'}, or drop ${source} to only warn.`),
  );
}
