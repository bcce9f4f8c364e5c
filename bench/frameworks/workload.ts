// The work every runner does, defined once: K tool steps (each one call to
// `lookup`), then a final answer; the tools offered (1, or lookup plus 9 that
// are offered and never called); and the workloads the comparison runs.

/** Tool steps per run; each is one model turn asking for `lookup` with {"key":"k<n>"}. */
export const TOOL_STEPS = 5;
/** Model requests per run: the tool steps plus the turn that answers. */
export const MODEL_STEPS = TOOL_STEPS + 1;
export const PROMPT = 'Look up the keys k0 to k4 one after the other, then say what you found.';
/** The final answer, as the mock streams it: ten pieces. */
export const ANSWER_PIECES = [
  'All ',
  'five ',
  'keys ',
  'were ',
  'looked ',
  'up: ',
  'k0 ',
  'to ',
  'k4 ',
  'have values.',
] as const;
export const ANSWER = ANSWER_PIECES.join('');

/** Field types the tools' small schemas use. */
export type FieldType = 'string' | 'number' | 'integer' | 'boolean';

/** A tool as data, so every runner builds the same tools in its framework's own way. */
export interface ToolShape {
  name: string;
  description: string;
  /** Every field is required. */
  fields: Record<string, FieldType>;
}

export const LOOKUP: ToolShape = {
  name: 'lookup',
  description: 'Looks a key up and returns its value.',
  fields: { key: 'string' },
};

/** Offered in the 10-tool workloads, never called by the mock model. */
const OTHER_TOOLS: ToolShape[] = [
  { name: 'getWeather', description: 'Current weather for a city.', fields: { city: 'string' } },
  {
    name: 'convertCurrency',
    description: 'Converts an amount between two currencies.',
    fields: { amount: 'number', from: 'string', to: 'string' },
  },
  { name: 'getOrder', description: 'Looks an order up by its number.', fields: { orderId: 'integer' } },
  { name: 'searchDocs', description: 'Searches the documentation.', fields: { query: 'string', limit: 'integer' } },
  {
    name: 'sendEmail',
    description: 'Sends an email to a user.',
    fields: { to: 'string', subject: 'string', body: 'string' },
  },
  { name: 'createTicket', description: 'Opens a support ticket.', fields: { title: 'string', urgent: 'boolean' } },
  { name: 'getStock', description: 'Units in stock for a product.', fields: { sku: 'string' } },
  {
    name: 'scheduleMeeting',
    description: 'Books a meeting slot.',
    fields: { day: 'string', hour: 'integer', minutes: 'integer' },
  },
  {
    name: 'translate',
    description: 'Translates a text into a language.',
    fields: { text: 'string', language: 'string' },
  },
];

export function toolShapes(count: number): ToolShape[] {
  return count <= 1 ? [LOOKUP] : [LOOKUP, ...OTHER_TOOLS.slice(0, count - 1)];
}

/**
 * Tool executions in this process, counted to check that each runner really did
 * the work. Kept on globalThis: the built harness bundles the child and each
 * runner apart (harness-build.ts), each with its own copy of this module.
 */
const LOOKUPS = Symbol.for('toolgate.bench.lookups');
const counters = globalThis as unknown as Record<symbol, number | undefined>;

/** The tool's work, identical for every runner. */
export function lookup(key: string): string {
  counters[LOOKUPS] = (counters[LOOKUPS] ?? 0) + 1;
  return `value of ${key}`;
}

export function lookupCount(): number {
  return counters[LOOKUPS] ?? 0;
}

/** What a tool that is offered but never called does if a framework calls it anyway. */
export function notCalled(name: string): string {
  throw new Error(`tool ${name} was called; the mock model never asks for it`);
}

export function jsonSchemaOf(shape: ToolShape): {
  type: 'object';
  properties: Record<string, { type: FieldType }>;
  required: string[];
  additionalProperties: false;
} {
  const properties: Record<string, { type: FieldType }> = {};
  for (const [field, type] of Object.entries(shape.fields)) properties[field] = { type };
  return { type: 'object', properties, required: Object.keys(shape.fields), additionalProperties: false };
}

export interface Workload {
  id: string;
  /** Runs measured (after the warm-up runs). */
  runs: number;
  /** Runs in flight at once; 1 = sequential. */
  concurrency: number;
  stream: boolean;
  tools: number;
  /** Runs before measuring (JIT, connections, caches), not counted. */
  warmup: number;
}

const QUICK_RUNS = { sequential: 20, concurrent: 100, warmup: 3 };
// 50 warm-up runs: with 20, the JIT was still settling in the measured runs (the first-token
// median of the same runner moved by 80 µs between 200 and 1,000 measured runs).
const FULL_RUNS = { sequential: 200, concurrent: 300, warmup: 50 };
export const CONCURRENCY = 50;

/** 200 sequential runs and 300 at 50 concurrent with 1 tool, 200 sequential with 10 tools; each streaming and not. */
export function workloads(quick: boolean): Workload[] {
  const n = quick ? QUICK_RUNS : FULL_RUNS;
  const bases = [
    { id: 'seq', runs: n.sequential, concurrency: 1, tools: 1 },
    { id: `conc${CONCURRENCY}`, runs: n.concurrent, concurrency: CONCURRENCY, tools: 1 },
    { id: 'seq-10tools', runs: n.sequential, concurrency: 1, tools: 10 },
  ];
  const list: Workload[] = [];
  for (const base of bases) {
    for (const stream of [false, true])
      list.push({ ...base, id: stream ? `${base.id}-stream` : base.id, stream, warmup: n.warmup });
  }
  return list;
}
