import type { ErrorObject } from 'ajv';
import { isJsonObject, type JsonSchema, type JsonValue } from '../core/json.ts';
import { describeSchema } from './describe-schema.ts';
import type { IssueCode, ValidationIssue } from './issues.ts';
import { appendPointer } from './json-pointer.ts';
import { jsonTypeOf, lookupPointer, objectView } from './schema-view.ts';

/**
 * Turns ajv's errors (compiled with `allErrors` and `verbose`) into clean issues.
 * The hard part is anyOf/oneOf: ajv reports every failing branch plus the
 * combinator itself, which reads as noise ("must be null", "must be string",
 * "must match a schema in anyOf"). We regroup the branch errors and keep either
 * the one branch whose shape fits the value (its specific errors) or a single
 * issue naming the alternatives.
 */
export function mapAjvErrors(errors: readonly ErrorObject[], root: JsonSchema): ValidationIssue[] {
  const items: Item[] = [];
  for (const error of errors) {
    // An `if` failure is always accompanied by the then/else errors, which say more.
    if (error.keyword === 'if') continue;
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') collapseCombinator(items, error, root);
    else items.push(itemOf(error, root));
  }
  return dedupe(items.flatMap((item) => item.issues));
}

interface Item {
  instancePath: string;
  schemaPath: string;
  parentSchema: unknown;
  keyword: string;
  issues: ValidationIssue[];
  /** The value's kind does not fit at all (type/const/enum at this very path). */
  kindMismatch: boolean;
}

const KIND_KEYWORDS: ReadonlySet<string> = new Set(['type', 'const', 'enum', 'false schema']);

function itemOf(error: ErrorObject, root: JsonSchema): Item {
  return {
    instancePath: error.instancePath,
    schemaPath: error.schemaPath,
    parentSchema: error.parentSchema,
    keyword: error.keyword,
    issues: [issueOf(error, root)],
    kindMismatch: KIND_KEYWORDS.has(error.keyword),
  };
}

function collapseCombinator(items: Item[], error: ErrorObject, root: JsonSchema): void {
  const path = error.instancePath;
  const branches: unknown[] = Array.isArray(error.schema) ? error.schema : [];
  const reach = branches.map((branch) => reachableSchemas(branch, root));
  const members: Item[][] = branches.map(() => []);
  // ajv emits a combinator's branch errors right before the combinator error.
  for (let last = items.at(-1); last !== undefined; last = items.at(-1)) {
    if (!isUnder(last.instancePath, path)) break;
    const branch = branchOf(last, error.schemaPath, reach);
    if (branch === -1) break;
    members[branch]?.unshift(last);
    items.pop();
  }
  const code: IssueCode = error.keyword === 'oneOf' ? 'one_of' : 'any_of';
  const received = receivedOf(error);
  const alternatives = [...new Set(branches.map((b) => describeSchema(b, root)))].join(' or ');
  const params: Record<string, unknown> = error.params;
  const passing = params['passingSchemas'];
  if (Array.isArray(passing)) {
    const message = `matches more than one of the alternatives (${passing.join(' and ')}) but must match exactly one`;
    items.push(synthetic(error, false, issue({ code, path, message, expected: alternatives, received })));
    return;
  }
  const fits = members.map((list) => list.length > 0 && !list.some((m) => m.kindMismatch && m.instancePath === path));
  const fitting = fits.flatMap((fit, i) => (fit ? [i] : []));
  const chosen = fitting.length === 1 ? fitting[0] : pickByDiscriminator(fitting, members, path);
  if (chosen !== undefined) {
    items.push(...(members[chosen] ?? []));
    return;
  }
  if (fitting.length === 0) {
    const keywords = new Set(
      members.flatMap((list) => list.filter((m) => m.instancePath === path && m.kindMismatch).map((m) => m.keyword)),
    );
    const single = sharedCode(keywords);
    const message = single === undefined ? `must match one of: ${alternatives}` : `must be ${alternatives}`;
    items.push(
      synthetic(error, true, issue({ code: single ?? code, path, message, expected: alternatives, received })),
    );
    return;
  }
  const message = `does not match any of the alternatives: ${alternatives}`;
  items.push(synthetic(error, false, issue({ code, path, message, expected: alternatives, received })));
}

/** When every branch failed the same simple way, one `type` or `enum` issue says it best. */
function sharedCode(keywords: ReadonlySet<string>): IssueCode | undefined {
  if (keywords.size === 0) return undefined;
  if (keywords.size === 1 && keywords.has('type')) return 'type';
  return [...keywords].every((k) => k === 'enum' || k === 'const') ? 'enum' : undefined;
}

/** In a discriminated union, the one branch whose `const`/`enum` children all matched. */
function pickByDiscriminator(fitting: number[], members: Item[][], path: string): number | undefined {
  const matched = fitting.filter(
    (i) =>
      !(members[i] ?? []).some(
        (m) => (m.keyword === 'const' || m.keyword === 'enum') && parentPointer(m.instancePath) === path,
      ),
  );
  return matched.length === 1 && fitting.length > 1 ? matched[0] : undefined;
}

function synthetic(error: ErrorObject, kindMismatch: boolean, issue: ValidationIssue): Item {
  return {
    instancePath: error.instancePath,
    schemaPath: error.schemaPath,
    parentSchema: error.parentSchema,
    keyword: error.keyword,
    issues: [issue],
    kindMismatch,
  };
}

function branchOf(item: Item, combinatorPath: string, reach: Set<object>[]): number {
  const prefix = `${combinatorPath}/`;
  if (item.schemaPath.startsWith(prefix)) {
    const index = Number(item.schemaPath.slice(prefix.length).split('/')[0]);
    if (Number.isInteger(index) && index < reach.length) return index;
  }
  // Errors inside a `$ref` carry the target's schema path, so fall back to identity.
  const parent = item.parentSchema;
  if (typeof parent === 'object' && parent !== null) return reach.findIndex((set) => set.has(parent));
  return -1;
}

/** Every schema object reachable from `node`, following local `$ref`s. */
function reachableSchemas(node: unknown, root: JsonSchema): Set<object> {
  const seen = new Set<object>();
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    if (Array.isArray(current)) {
      for (const item of current) stack.push(item);
      continue;
    }
    for (const [key, value] of Object.entries(current)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#')) stack.push(lookupPointer(root, value));
      else stack.push(value);
    }
  }
  return seen;
}

function isUnder(path: string, base: string): boolean {
  return path === base || path.startsWith(`${base}/`);
}

function parentPointer(path: string): string {
  const at = path.lastIndexOf('/');
  return at <= 0 ? '' : path.slice(0, at);
}

function issueOf(error: ErrorObject, root: JsonSchema): ValidationIssue {
  const path = error.instancePath;
  const params: Record<string, unknown> = error.params;
  const received = receivedOf(error);
  const at = (code: IssueCode, message: string, expected?: string): ValidationIssue =>
    issue({ code, path, message, expected, received });
  switch (error.keyword) {
    case 'required':
    case 'dependentRequired':
    case 'dependencies': {
      const missing = String(params['missingProperty'] ?? '');
      const schema = objectView(error.parentSchema, root).properties.get(missing);
      return issue({
        code: 'required',
        path: appendPointer(path, missing),
        message:
          error.keyword === 'required'
            ? 'is required but missing'
            : `is required when "${String(params['property'])}" is present`,
        expected: schema === undefined ? undefined : describeSchema(schema, root),
        received: undefined,
      });
    }
    case 'type': {
      const expected = String(params['type']).split(',').join(' or ');
      return at(
        'type',
        `must be ${expected}, not ${received === undefined ? 'missing' : jsonTypeOf(received)}`,
        expected,
      );
    }
    case 'enum': {
      const values = Array.isArray(params['allowedValues']) ? params['allowedValues'] : [];
      const expected = `one of ${values.map((v) => JSON.stringify(v)).join(', ')}`;
      return at('enum', `must be ${expected}`, expected);
    }
    case 'const': {
      const expected = `exactly ${JSON.stringify(params['allowedValue'])}`;
      return at('const', `must be ${expected}`, expected);
    }
    case 'format': {
      const format = String(params['format']);
      return at('format', `must be a valid ${format}`, `string in ${format} format`);
    }
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
    case 'exclusiveMaximum': {
      const expected = `${String(params['comparison'])} ${String(params['limit'])}`;
      return at(error.keyword.toLowerCase().includes('min') ? 'minimum' : 'maximum', `must be ${expected}`, expected);
    }
    case 'minLength':
    case 'maxLength': {
      const min = error.keyword === 'minLength';
      const expected = `${min ? 'at least' : 'at most'} ${plural(params['limit'], 'character')}`;
      return at(min ? 'min_length' : 'max_length', `must have ${expected}`, expected);
    }
    case 'pattern': {
      const pattern = `/${String(params['pattern'])}/`;
      return at('pattern', `must match the pattern ${pattern}`, `string matching ${pattern}`);
    }
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const name = String(params['additionalProperty'] ?? params['unevaluatedProperty'] ?? '');
      const value = isJsonObject(received) && Object.hasOwn(received, name) ? received[name] : undefined;
      return issue({
        code: 'additional_property',
        path: appendPointer(path, name),
        message: `is not an allowed property: the schema has no "${name}"`,
        expected: undefined,
        received: value,
      });
    }
    case 'minItems':
    case 'maxItems': {
      const min = error.keyword === 'minItems';
      const expected = `${min ? 'at least' : 'at most'} ${plural(params['limit'], 'item')}`;
      return at(min ? 'min_items' : 'max_items', `must have ${expected}`, expected);
    }
    case 'uniqueItems':
      return at(
        'unique_items',
        `must not contain duplicates (items ${String(params['j'])} and ${String(params['i'])} are equal)`,
        'no duplicate items',
      );
    case 'not': {
      const excluded = describeSchema(error.schema, root);
      return at('not', `must not be ${excluded}`, `not ${excluded}`);
    }
    default:
      return at('other', error.message ?? `fails the "${error.keyword}" rule`);
  }
}

/**
 * The value ajv checked (`verbose`): a part of the arguments, so JSON, though
 * ajv types it unknown. Anything else is not said.
 */
function receivedOf(error: ErrorObject): JsonValue | undefined {
  const data: unknown = error.data;
  if (data === null || typeof data === 'string' || typeof data === 'number' || typeof data === 'boolean') return data;
  if (Array.isArray(data) || isJsonObject(data)) return data;
  return undefined;
}

/** Builds an issue with a stable key order and without undefined fields. */
function issue(fields: {
  code: IssueCode;
  path: string;
  message: string;
  expected: string | undefined;
  received: JsonValue | undefined;
}): ValidationIssue {
  const out: ValidationIssue = { code: fields.code, path: fields.path, message: fields.message };
  if (fields.expected !== undefined) out.expected = fields.expected;
  if (fields.received !== undefined) out.received = fields.received;
  return out;
}

function plural(count: unknown, noun: string): string {
  return `${String(count)} ${noun}${count === 1 ? '' : 's'}`;
}

function dedupe(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.code}\u0000${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
