import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ToolgateError, describeError, isJsonObject, type JsonObject } from '../../core/index.ts';
import { readConfigFile } from '../../config/load-config.ts';
import { unknownKeyMessage } from '../../config/unknown-key-message.ts';
import { compileCallCondition } from './call-condition.ts';
import type { Expectation, PolicySuite, SuiteRun } from './policy-suite.ts';
import { problemsOf, suiteError, type SuiteProblem } from './suite-problems.ts';
import { EXPECTATION_KINDS, fileRunSchema, idRunSchema, suiteSchema, type ExpectationKey } from './suite-schema.ts';

/** A suite names runs and expectations: a bigger file is a mistake (or not a suite). */
const MAX_SUITE_BYTES = 4 * 1024 * 1024;

const KIND_KEYS = Object.keys(EXPECTATION_KINDS).filter((k): k is ExpectationKey => k in EXPECTATION_KINDS);
const ALL_KEYS = [...new Set(Object.values(EXPECTATION_KINDS).flatMap((schema) => Object.keys(schema.shape)))];
/** Keys that belong to one kind, for "decision: needs tool:". */
const COMPANION: Readonly<Record<string, ExpectationKey>> = { decision: 'tool', when: 'tool', tenant: 'never' };

/**
 * Reads and checks a policy test suite (YAML or JSON). Every problem is reported at once, each with its key
 * path and the fix; relative paths in the suite (config, policy, run files) are read from the suite's folder,
 * and `when:` conditions are parsed here, so nothing is replayed from a suite with a mistake in it.
 */
export function loadPolicySuite(file: string, cwd: string = process.cwd()): PolicySuite {
  const path = resolve(cwd, file);
  if (!existsSync(path))
    throw new ToolgateError('usage', `policy test suite ${file} does not exist; give the path of a suite.yaml`);
  const stat = statSync(path);
  if (!stat.isFile()) throw new ToolgateError('usage', `policy test suite ${file} is not a file`);
  if (stat.size > MAX_SUITE_BYTES)
    throw new ToolgateError('usage', `policy test suite ${file} is larger than ${MAX_SUITE_BYTES} bytes`);
  const raw = readConfigFile(path);
  const parsed = suiteSchema.safeParse(raw ?? {});
  if (!parsed.success) throw suiteError(file, problemsOf({ issues: parsed.error.issues, schema: suiteSchema, at: [] }));
  const suite = parsed.data;
  const dir = dirname(path);
  const problems: SuiteProblem[] = [];
  const existing = (relative: string, at: readonly PropertyKey[]): string => {
    const absolute = resolve(dir, relative);
    if (!existsSync(absolute))
      problems.push({ path: at, message: `${relative} does not exist (a relative path is read from ${dir})` });
    return absolute;
  };
  const runs = suite.runs.flatMap((item, i) => suiteRun({ item, at: ['runs', i], problems, existing }));
  const expect = suite.expect.flatMap((item, i) => expectation(item, ['expect', i], problems));
  const config = suite.config === undefined ? undefined : existing(suite.config, ['config']);
  const policy = suite.policy === undefined ? undefined : existing(suite.policy, ['policy']);
  if (problems.length > 0) throw suiteError(file, problems);
  return {
    file: path,
    ...(suite.description === undefined ? {} : { description: suite.description }),
    ...(config === undefined ? {} : { config }),
    ...(policy === undefined ? {} : { policy }),
    runs,
    expect,
  };
}

function suiteRun(options: {
  item: unknown;
  at: readonly PropertyKey[];
  problems: SuiteProblem[];
  existing: (relative: string, at: readonly PropertyKey[]) => string;
}): SuiteRun[] {
  const { item, at, problems } = options;
  if (!isJsonObject(item) || ('file' in item && 'id' in item) || !('file' in item || 'id' in item)) {
    const both = isJsonObject(item) && 'file' in item && 'id' in item;
    problems.push({
      path: at,
      message: both
        ? 'a run is either file: or id:, not both; list them as two entries'
        : 'a run is { file: ./runs/orders.jsonl } (a `toolgate runs export` file) or ' +
          '{ id: run_01J… } (from --store/--url)',
    });
    return [];
  }
  const schema = 'file' in item ? fileRunSchema : idRunSchema;
  const parsed = schema.safeParse(item);
  if (!parsed.success) {
    problems.push(...problemsOf({ issues: parsed.error.issues, schema, at }));
    return [];
  }
  const run = parsed.data;
  return 'file' in run ? [{ file: options.existing(run.file, [...at, 'file']) }] : [{ id: run.id }];
}

function expectation(item: unknown, at: readonly PropertyKey[], problems: SuiteProblem[]): Expectation[] {
  if (!isJsonObject(item)) {
    problems.push({ path: at, message: 'an expectation is a mapping, e.g. { noNewDenials: true }' });
    return [];
  }
  const kinds = KIND_KEYS.filter((key) => key in item);
  const [kind, second] = kinds;
  if (kind === undefined || second !== undefined) {
    problems.push(...kindProblems(item, at, kinds));
    return [];
  }
  const schema = EXPECTATION_KINDS[kind];
  const parsed = schema.safeParse(item);
  if (!parsed.success) {
    problems.push(...problemsOf({ issues: parsed.error.issues, schema, at }));
    return [];
  }
  const data = parsed.data;
  const name = 'name' in data && typeof data.name === 'string' ? data.name : undefined;
  if ('tool' in data) {
    const decisions = Array.isArray(data.decision) ? [...new Set(data.decision)] : [data.decision];
    let when;
    if (data.when !== undefined) {
      try {
        when = compileCallCondition(data.when);
      } catch (error) {
        problems.push({
          path: [...at, 'when'],
          message: `not a CEL condition over args, tool, tenant, user and context: ${describeError(error)}`,
        });
        return [];
      }
    }
    const label = `${data.tool}${data.when === undefined ? '' : ` when ${data.when}`}: ${decisions.join(' or ')}`;
    return [
      { kind: 'decision', name: name ?? label, tool: data.tool, decisions, ...(when === undefined ? {} : { when }) },
    ];
  }
  if ('never' in data) {
    const tenant = data.tenant;
    const label =
      tenant === undefined ? `no run reaches ${data.never}` : `tenant ${tenant} never reaches ${data.never}`;
    return [{ kind: 'never', name: name ?? label, never: data.never, ...(tenant === undefined ? {} : { tenant }) }];
  }
  const labels = {
    noNewDenials: 'no new denials',
    noNewApprovals: 'no new approvals',
    answerUnchanged: 'answer unchanged',
  };
  const simple = kind === 'noNewDenials' || kind === 'noNewApprovals' || kind === 'answerUnchanged' ? kind : undefined;
  return simple === undefined ? [] : [{ kind: simple, name: name ?? labels[simple] }];
}

/** Why an entry is no expectation: no key says which kind (a typo, a companion key alone), or two do. */
function kindProblems(item: JsonObject, at: readonly PropertyKey[], kinds: readonly string[]): SuiteProblem[] {
  if (kinds.length > 1)
    return [
      {
        path: at,
        message: `one expectation per entry: ${kinds.join(' and ')} are ${kinds.length} kinds; split them into entries`,
      },
    ];
  const problems: SuiteProblem[] = [];
  for (const key of Object.keys(item)) {
    const companion = COMPANION[key];
    if (companion !== undefined)
      problems.push({
        path: [...at, key],
        message: `${key}: belongs to a ${companion}: expectation; add ${companion}:`,
      });
    else if (!ALL_KEYS.includes(key)) problems.push({ path: [...at, key], message: unknownKeyMessage(key, ALL_KEYS) });
  }
  if (problems.length > 0) return problems;
  return [{ path: at, message: `say what to expect with one of ${KIND_KEYS.join(', ')} (docs/policy-test.md)` }];
}
