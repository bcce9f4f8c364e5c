import { createRequire } from 'node:module';
import type { Ajv, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { JsonSchema, JsonValue } from '../core/json.ts';
import { checkJsonShape } from '../core/json-shape.ts';
import type { ValidationIssue, ValidationResult } from './issues.ts';
import { mapAjvErrors } from './map-ajv-errors.ts';
import { canonicalJson } from '../core/canonical-json.ts';
import { describeError } from '../core/describe-error.ts';

/** Compiled validators kept (least recently used are dropped first). */
export const DEFAULT_VALIDATOR_CACHE_SIZE = 256;

export interface ValidatorOptions {
  /** How many distinct schemas keep a compiled validator. */
  cacheSize?: number;
  /** Deepest nesting of a value (the value itself is level 1). Default DEFAULT_MAX_JSON_DEPTH (64). */
  maxDepth?: number;
  /** Most values (objects, arrays and scalars) in one value. Default DEFAULT_MAX_JSON_NODES (100,000). */
  maxNodes?: number;
}

export interface Validator {
  /**
   * Checks a value against a JSON Schema. Never throws: a broken schema is an
   * `invalid_schema` issue; a value nested too deep, too large or holding a
   * non-finite number is one `too_deep`, `too_large` or `not_finite` issue,
   * found before the schema is looked at.
   */
  validate(schema: JsonSchema, value: JsonValue): ValidationResult;
  /** How often a schema was compiled, and how many compiled schemas are kept (for metrics and tests). */
  stats(): { compiles: number; cached: number };
}

type Draft = 'draft-07' | '2020-12';

type Compiled =
  | { ok: true; validate: ValidateFunction; schema: JsonSchema; release: () => void }
  | { ok: false; issue: ValidationIssue };

interface AjvModules {
  Ajv: typeof Ajv;
  Ajv2020: typeof Ajv2020;
  addFormats: (ajv: Ajv | Ajv2020) => unknown;
}

let ajvModules: AjvModules | undefined;

/**
 * ajv (about ninety CommonJS modules) is required on the first compile, not
 * at import: a process that never validates a call — `toolgate --help`, or a
 * run until its first tool call — does not pay for it.
 */
function loadAjv(): AjvModules {
  if (ajvModules === undefined) {
    const require = createRequire(import.meta.url);
    // require() is untyped: each module is given the type its own declarations (imported as types above) say.
    const core: { Ajv: typeof Ajv } = require('ajv');
    const draft2020: { Ajv2020: typeof Ajv2020 } = require('ajv/dist/2020.js');
    // ajv-formats is CommonJS; its plugin is the module itself (or its default export).
    const formats: AjvModules['addFormats'] & { default?: AjvModules['addFormats'] } = require('ajv-formats');
    ajvModules = { Ajv: core.Ajv, Ajv2020: draft2020.Ajv2020, addFormats: formats.default ?? formats };
  }
  return ajvModules;
}

/**
 * A JSON Schema validator for tool input schemas as MCP servers send them:
 * draft-07 (`$schema: http://json-schema.org/draft-07/schema#`, the TypeScript
 * SDK's zod-to-json-schema output) and 2020-12 (the default when `$schema` is
 * absent, as most Python servers send). A schema without `$schema` that only
 * compiles as draft-07 (tuple `items`, `dependencies`) is retried as draft-07.
 * Unknown keywords are ignored (`strict: false`): real schemas carry many.
 * Schemas are treated as immutable: a compiled validator is remembered per
 * schema object and per content. Values are shape-checked first: ajv's
 * checks recurse, and `type: number` accepts Infinity.
 */
export function createValidator(options: ValidatorOptions = {}): Validator {
  const cacheSize = Math.max(1, options.cacheSize ?? DEFAULT_VALIDATOR_CACHE_SIZE);
  const limits = {
    ...(options.maxDepth === undefined ? {} : { maxDepth: options.maxDepth }),
    ...(options.maxNodes === undefined ? {} : { maxNodes: options.maxNodes }),
  };
  const instances = new Map<string, Ajv | Ajv2020>();
  const byIdentity = new WeakMap<object, Compiled>();
  const byKey = new Map<string, Compiled>();
  let compiles = 0;

  const instance = (draft: Draft, unicode: boolean): Ajv | Ajv2020 => {
    const key = `${draft}:${unicode}`;
    let ajv = instances.get(key);
    if (ajv === undefined) {
      ajv = newAjv(draft, unicode);
      instances.set(key, ajv);
    }
    return ajv;
  };

  const compileWith = (draft: Draft, schema: JsonSchema): Compiled => {
    let unicode = true;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const ajv = attempt === 2 ? newAjv(draft, unicode) : instance(draft, unicode);
      try {
        const validate = ajv.compile(schema);
        return { ok: true, validate, schema, release: () => forget(ajv, schema) };
      } catch (error) {
        // ajv registers a schema before compiling it; a failed compile must not leave it behind.
        forget(ajv, schema);
        const message = describeError(error);
        // Patterns written for non-unicode regexes (`\-` outside a class) are common.
        if (unicode && /regular expression/i.test(message)) unicode = false;
        // Two tools whose schemas share an `$id` must not collide in one ajv instance.
        else if (/already exists/i.test(message) && attempt < 2) attempt = 1;
        else return invalid(message);
      }
    }
    return invalid('the schema could not be compiled');
  };

  const compile = (schema: JsonSchema): Compiled => {
    const draft = draftOf(schema['$schema']);
    const { $schema: _ignored, ...body } = schema;
    if (draft !== undefined) return compileWith(draft, body);
    const modern = compileWith('2020-12', body);
    if (modern.ok) return modern;
    const legacy = compileWith('draft-07', body);
    return legacy.ok ? legacy : modern;
  };

  const lookup = (schema: JsonSchema): Compiled => {
    const known = byIdentity.get(schema);
    if (known !== undefined) return known;
    let key: string;
    try {
      key = canonicalJson(schema);
    } catch (error) {
      return invalid(describeError(error));
    }
    let compiled = byKey.get(key);
    if (compiled === undefined) {
      compiles += 1;
      compiled = compile(schema);
      if (byKey.size >= cacheSize) evictOldest(byKey);
    } else {
      byKey.delete(key);
    }
    byKey.set(key, compiled);
    byIdentity.set(schema, compiled);
    return compiled;
  };

  return {
    stats: () => ({ compiles, cached: byKey.size }),
    validate(schema, value) {
      const problem = checkJsonShape(value, limits);
      if (problem !== undefined)
        return { ok: false, issues: [{ code: problem.code, path: problem.path, message: problem.message }] };
      const compiled = lookup(schema);
      if (!compiled.ok) return { ok: false, issues: [compiled.issue] };
      try {
        if (compiled.validate(value)) return { ok: true };
        return { ok: false, issues: mapAjvErrors(compiled.validate.errors ?? [], compiled.schema) };
      } catch (error) {
        const message = describeError(error);
        return {
          ok: false,
          issues: [{ code: 'other', path: '', message: `the value could not be checked: ${message}` }],
        };
      }
    },
  };
}

function newAjv(draft: Draft, unicode: boolean): Ajv | Ajv2020 {
  // `verbose` gives each error its data and schema, which the issue mapper needs.
  const options = { allErrors: true, strict: false, verbose: true, logger: false as const, unicodeRegExp: unicode };
  const { Ajv: Draft07, Ajv2020: Draft2020, addFormats } = loadAjv();
  const ajv = draft === '2020-12' ? new Draft2020(options) : new Draft07(options);
  addFormats(ajv);
  return ajv;
}

/** The draft a `$schema` URI names; undefined when absent or unknown. */
function draftOf(uri: unknown): Draft | undefined {
  if (typeof uri !== 'string') return undefined;
  if (/draft-0[4-7]/.test(uri)) return 'draft-07';
  if (/20(19-09|20-12)/.test(uri)) return '2020-12';
  return undefined;
}

function forget(ajv: Ajv | Ajv2020, schema: JsonSchema): void {
  try {
    ajv.removeSchema(schema);
  } catch {
    // Nothing registered: nothing to forget.
  }
}

function evictOldest(cache: Map<string, Compiled>): void {
  const oldest = cache.keys().next();
  if (oldest.done === true) return;
  const entry = cache.get(oldest.value);
  cache.delete(oldest.value);
  if (entry?.ok === true) entry.release();
}

function invalid(reason: string): Compiled {
  return {
    ok: false,
    issue: {
      code: 'invalid_schema',
      path: '',
      message:
        `the tool's input schema is not a usable JSON Schema (${reason}); ` +
        `this is a problem with the tool, not with the arguments`,
    },
  };
}
