import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { STRATEGY_NAMES, ToolgateError, describeError } from '../../core/index.ts';
import { isOneOf } from '../../core/is-one-of.ts';
import { formatConfigIssues } from '../../config/format-config-issues.ts';
import { readConfigFile } from '../../config/load-config.ts';
import { suiteSchema, type EvalSuite } from './suite-schema.ts';

/** A suite is a handful of cases: a bigger file is a mistake (or not a suite). */
const MAX_SUITE_BYTES = 4 * 1024 * 1024;

/**
 * Reads and checks a suite file (YAML or JSON). Errors name the file and the
 * key path; relative paths in it (`config`, `scripted:` models) mean paths
 * next to the suite.
 */
export function loadSuite(file: string): EvalSuite & { file: string } {
  const path = resolve(file);
  if (!existsSync(path)) throw new ToolgateError('usage', `eval suite ${file} does not exist`);
  const stat = statSync(path);
  if (!stat.isFile()) throw new ToolgateError('usage', `eval suite ${file} is not a file`);
  if (stat.size > MAX_SUITE_BYTES)
    throw new ToolgateError('usage', `eval suite ${file} is larger than ${MAX_SUITE_BYTES} bytes`);
  const raw = readConfigFile(path);
  const result = suiteSchema.safeParse(raw);
  if (!result.success)
    throw new ToolgateError(
      'config_invalid',
      formatConfigIssues({ source: file, issues: result.error.issues, schema: suiteSchema }),
    );
  const suite = result.data;
  const dir = dirname(path);
  checkPatterns(suite, file);
  const model = (id: string): string =>
    id.startsWith('scripted:') && !isAbsolute(id.slice('scripted:'.length))
      ? `scripted:${resolve(dir, id.slice('scripted:'.length))}`
      : id;
  return {
    ...suite,
    file: path,
    ...(suite.config === undefined ? {} : { config: resolve(dir, suite.config) }),
    matrix: {
      ...suite.matrix,
      ...(suite.matrix.models === undefined ? {} : { models: suite.matrix.models.map(model) }),
    },
    cases: suite.cases.map((c) => {
      const named = c.model;
      if (named === undefined) return c;
      if (typeof named === 'string') return { ...c, model: model(named) };
      const resolved: typeof named = {};
      for (const [strategy, id] of Object.entries(named))
        if (isOneOf(STRATEGY_NAMES, strategy) && id !== undefined) resolved[strategy] = model(id);
      return { ...c, model: resolved };
    }),
  };
}

/** Regular expressions in checks must compile: a typo is found before anything runs. */
function checkPatterns(suite: EvalSuite, file: string): void {
  const problems: string[] = [];
  suite.cases.forEach((c, i) => {
    const check = (source: string, where: string): void => {
      try {
        new RegExp(source);
      } catch (error) {
        problems.push(`cases[${i}] (${c.name}).${where}: not a regular expression: ${describeError(error)}`);
      }
    };
    if (c.expect.output?.matches !== undefined) check(c.expect.output.matches, 'expect.output.matches');
    (c.expect.calls ?? []).forEach((call, j) => {
      for (const [key, value] of Object.entries(call.args ?? {})) {
        if (typeof value === 'string' && value.length > 2 && value.startsWith('/') && value.endsWith('/'))
          check(value.slice(1, -1), `expect.calls[${j}].args.${key}`);
      }
    });
  });
  if (problems.length > 0)
    throw new ToolgateError('config_invalid', `${file}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
}
