/**
 * Realistic tool input schemas, shaped like what MCP servers actually send.
 * Shared by the tests of src/validation/ and src/gate/.
 */
import type { JsonSchema } from '../../src/core/json.ts';

/** The power-exchange `placeOrder` tool (zod v4 → JSON Schema 2020-12). */
export const PLACE_ORDER_SCHEMA: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    userId: { type: 'string', minLength: 1, description: 'The trading user' },
    side: { type: 'string', enum: ['BUY', 'SELL'] },
    price: { type: 'number', exclusiveMinimum: 0, description: 'Limit price, EUR/MWh' },
    qty: { type: 'number', exclusiveMinimum: 0, description: 'Quantity, MWh' },
    symbol: { type: 'string' },
  },
  required: ['userId', 'side', 'price', 'qty'],
  additionalProperties: false,
};

/** The filesystem server's `write_file` (zod-to-json-schema, draft-07). */
export const WRITE_FILE_SCHEMA: JsonSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { path: { type: 'string' }, content: { type: 'string' } },
  required: ['path', 'content'],
  additionalProperties: false,
};

/** The filesystem server's `edit_file`: nested objects, a boolean with a default. */
export const EDIT_FILE_SCHEMA: JsonSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    path: { type: 'string' },
    edits: {
      type: 'array',
      items: {
        type: 'object',
        properties: { oldText: { type: 'string' }, newText: { type: 'string' } },
        required: ['oldText', 'newText'],
        additionalProperties: false,
      },
    },
    dryRun: { type: 'boolean', default: false },
  },
  required: ['path', 'edits'],
  additionalProperties: false,
};

/** A Python (pydantic) server: no `$schema`, `$defs` refs, Optional as anyOf-with-null, integers. */
export const PYDANTIC_SCHEMA: JsonSchema = {
  type: 'object',
  title: 'create_invoiceArguments',
  $defs: {
    Currency: { type: 'string', enum: ['EUR', 'USD', 'GBP'], title: 'Currency' },
    Line: {
      type: 'object',
      properties: {
        description: { type: 'string' },
        quantity: { type: 'integer', minimum: 1 },
        unitPrice: { type: 'number', minimum: 0 },
      },
      required: ['description', 'quantity', 'unitPrice'],
    },
  },
  properties: {
    customerId: { type: 'string' },
    currency: { $ref: '#/$defs/Currency' },
    lines: { type: 'array', items: { $ref: '#/$defs/Line' }, minItems: 1 },
    dueDays: { anyOf: [{ type: 'integer' }, { type: 'null' }], default: null },
    paid: { type: 'boolean', default: false },
    note: { anyOf: [{ type: 'string', maxLength: 200 }, { type: 'null' }], default: null },
  },
  required: ['customerId', 'currency', 'lines'],
};

/** An older generator: draft-07 `definitions`, no `$schema`, a nullable union of a ref. */
export const DEFINITIONS_SCHEMA: JsonSchema = {
  type: 'object',
  definitions: {
    Address: {
      type: 'object',
      properties: { street: { type: 'string' }, zip: { type: 'string', pattern: '^[0-9]{5}$' } },
      required: ['street', 'zip'],
    },
  },
  properties: {
    name: { type: 'string' },
    email: { type: 'string', format: 'email' },
    address: { anyOf: [{ $ref: '#/definitions/Address' }, { type: 'null' }] },
    tags: { type: 'array', items: { type: 'string' }, uniqueItems: true, maxItems: 3 },
    metadata: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['name'],
};

/** A zod discriminated union (oneOf of objects told apart by a const `kind`). */
export const DISCRIMINATED_SCHEMA: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    target: {
      oneOf: [
        {
          type: 'object',
          properties: { kind: { type: 'string', const: 'user' }, userId: { type: 'string' } },
          required: ['kind', 'userId'],
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: { kind: { type: 'string', const: 'group' }, size: { type: 'integer', minimum: 1 } },
          required: ['kind', 'size'],
          additionalProperties: false,
        },
      ],
    },
  },
  required: ['target'],
  additionalProperties: false,
};
