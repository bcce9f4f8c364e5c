import type { z } from 'zod';
import { ToolgateError } from '../../core/index.ts';
import { issueMessage, knownKeysAt } from '../../config/format-config-issues.ts';
import { unknownKeyMessage } from '../../config/unknown-key-message.ts';

/** More lines than this hide the first ones, which are usually the cause of the rest. */
const MAX_REPORTED_PROBLEMS = 10;

/** A key path in the suite file and what is wrong there, said so that the reader can fix it. */
export interface SuiteProblem {
  path: readonly PropertyKey[];
  message: string;
}

/** zod's issues of `schema` (checked at `at` in the file) as problems; unknown keys get the closest known key. */
export function problemsOf(options: {
  issues: readonly z.core.$ZodIssue[];
  schema: z.ZodType;
  at: readonly PropertyKey[];
}): SuiteProblem[] {
  const { issues, schema, at } = options;
  return issues.flatMap((issue) => {
    if (issue.code !== 'unrecognized_keys') return [{ path: [...at, ...issue.path], message: issueMessage(issue) }];
    const known = knownKeysAt(schema, issue.path) ?? [];
    return issue.keys.map((key) => ({ path: [...at, ...issue.path, key], message: unknownKeyMessage(key, known) }));
  });
}

/** One `config_invalid` error for every problem of a suite file: what the CLI prints (exit code 2). */
export function suiteError(source: string, problems: readonly SuiteProblem[]): ToolgateError {
  const lines = problems.map((p) => `${formatPath(p.path)}: ${p.message.replaceAll('\n', '\n      ')}`);
  const shown = lines.slice(0, MAX_REPORTED_PROBLEMS).map((line) => `  - ${line}`);
  if (lines.length > shown.length) shown.push(`  … and ${lines.length - shown.length} more`);
  return new ToolgateError(
    'config_invalid',
    `${source} is not a valid policy test suite:\n${shown.join('\n')}\nThe format is described in docs/policy-test.md.`,
  );
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(top level)' : path.map(String).join('.');
}
