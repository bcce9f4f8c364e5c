// The Standard Schema and Standard JSON Schema interfaces (standardschema.dev),
// copied as their specification asks, so no runtime dependency is needed:
// zod 4, valibot and arktype schemas all carry a `~standard` property.
import { ToolgateError, describeError, isJsonObject, type JsonSchema } from '../../core/index.ts';
import { parseJson } from '../../core/parse-json.ts';

export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1.Props<Input, Output>;
}

// eslint-disable-next-line @typescript-eslint/no-namespace -- the specification's own shape
export declare namespace StandardSchemaV1 {
  interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>;
    readonly types?: Types<Input, Output> | undefined;
    /** Standard JSON Schema: present when the library can describe itself as JSON Schema. */
    readonly jsonSchema?: JsonSchemaConverter | undefined;
  }
  type Result<Output> = SuccessResult<Output> | FailureResult;
  interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  interface PathSegment {
    readonly key: PropertyKey;
  }
  interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
  interface JsonSchemaConverter {
    readonly input: (options: {
      readonly target: string;
      readonly libraryOptions?: Record<string, unknown> | undefined;
    }) => Record<string, unknown>;
    readonly output: (options: {
      readonly target: string;
      readonly libraryOptions?: Record<string, unknown> | undefined;
    }) => Record<string, unknown>;
  }
  type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema['~standard']['types']>['input'];
  type InferOutput<Schema extends StandardSchemaV1> = NonNullable<Schema['~standard']['types']>['output'];
}

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props: unknown = '~standard' in value ? value['~standard'] : undefined;
  return typeof props === 'object' && props !== null && 'validate' in props && typeof props.validate === 'function';
}

/** JSON Schema targets tried in order: toolgate's validator reads both. */
const TARGETS = ['draft-2020-12', 'draft-07'] as const;

/**
 * A Standard Schema as JSON Schema, for the model and the gate: through the
 * Standard JSON Schema interface (zod 4, arktype, valibot wrapped with
 * `toStandardJsonSchema`), else a vendor method (`toJsonSchema`, `toJSONSchema`).
 * `what` names the schema in errors ("the inputSchema of tool getOrder").
 */
export function standardToJsonSchema(schema: StandardSchemaV1, what: string): JsonSchema {
  const props = schema['~standard'];
  const converter = props.jsonSchema;
  const failures: string[] = [];
  if (converter !== undefined && typeof converter.input === 'function') {
    for (const target of TARGETS) {
      try {
        return plainObject(converter.input({ target }), what);
      } catch (error) {
        if (error instanceof ToolgateError) throw error;
        failures.push(`${target}: ${describeError(error)}`);
      }
    }
  }
  // Libraries that predate Standard JSON Schema but convert themselves: arktype's toJsonSchema, zod 4's toJSONSchema.
  for (const method of ['toJsonSchema', 'toJSONSchema'] as const) {
    const vendorMethod: unknown = Reflect.get(schema, method);
    if (typeof vendorMethod !== 'function') continue;
    try {
      return plainObject(Reflect.apply(vendorMethod, schema, []), what);
    } catch (error) {
      if (error instanceof ToolgateError) throw error;
      failures.push(`${method}: ${describeError(error)}`);
    }
  }
  const hint =
    props.vendor === 'valibot'
      ? 'wrap it with toStandardJsonSchema() from @valibot/to-json-schema'
      : props.vendor === 'zod'
        ? 'use a zod 4 schema (zod 3 schemas cannot describe themselves as JSON Schema)'
        : 'use a schema library that implements Standard JSON Schema';
  const why =
    failures.length === 0
      ? `a ${props.vendor} schema that cannot describe itself as JSON Schema`
      : `a ${props.vendor} schema whose JSON Schema conversion failed (${failures.join('; ')})`;
  throw new ToolgateError('usage', `${what} is ${why}: ${hint}, or pass a JSON Schema object instead`);
}

/** A plain JSON copy: a converter's result may hold functions, undefined or class instances. */
function plainObject(value: unknown, what: string): JsonSchema {
  const copy: unknown = isJsonObject(value) ? parseJson(JSON.stringify(value)) : undefined;
  if (!isJsonObject(copy)) throw new ToolgateError('usage', `${what} did not convert to a JSON Schema object`);
  return copy;
}
