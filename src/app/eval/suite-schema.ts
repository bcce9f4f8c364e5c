import { z } from 'zod';

/** A value an argument must have: the value itself, or a string "/regex/" that its text must match. */
const argMatcher = z.record(z.string(), z.json());

const callCheck = z.strictObject({
  tool: z.string().min(1),
  /** Arguments the call must have had (a subset; a string "/…/" is a regular expression). */
  args: argMatcher.optional(),
});

const expectSchema = z.strictObject({
  /** The run's end status (default completed). */
  status: z.enum(['completed', 'failed', 'cancelled', 'waiting_approval', 'escalated']).optional(),
  /** Tools that must have run, each with optional arguments. */
  calls: z.array(callCheck).optional(),
  /** Tools that must not have run. */
  notCalls: z.array(z.string().min(1)).optional(),
  /** Gate verdicts that must appear: {tool, decision}. */
  decisions: z
    .array(
      z.strictObject({
        tool: z.string().min(1),
        decision: z.enum(['allowed', 'denied', 'approval_required', 'dry_run', 'invalid']),
      }),
    )
    .optional(),
  output: z
    .strictObject({
      contains: z.union([z.string(), z.array(z.string())]).optional(),
      matches: z.string().optional(),
    })
    .optional(),
  maxSteps: z.number().int().min(1).optional(),
  maxCostUsd: z.number().min(0).optional(),
});

const strategyName = z.enum(['react', 'plan', 'reflect', 'auto']);
const modelId = z
  .string()
  .regex(/^[a-z][a-z0-9-]*:.+$/, 'a model is "provider:model", e.g. openai:gpt-4o-mini or scripted:./script.json');

const caseSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,80}$/, 'case names use letters, digits, "_", "-", "." (at most 80)'),
  input: z.string().min(1),
  /** The kind of request, for the router: answer, lookup or change. */
  intent: z.enum(['answer', 'lookup', 'change']).optional(),
  tenant: z.string().min(1).optional(),
  user: z.string().min(1).optional(),
  context: z.record(z.string(), z.json()).optional(),
  dryRun: z.boolean().optional(),
  /**
   * This case's model instead of the matrix's: one for every strategy, or one per strategy (scripted runs differ by
   * strategy).
   */
  model: z.union([modelId, z.partialRecord(strategyName, modelId)]).optional(),
  expect: expectSchema.default({}),
});

export const suiteSchema = z.strictObject({
  description: z.string().optional(),
  /** A toolgate config file (relative to the suite) for servers, policy and providers; `--config` wins. */
  config: z.string().min(1).optional(),
  matrix: z
    .strictObject({
      strategies: z.array(strategyName).min(1).default(['react']),
      models: z.array(modelId).min(1).optional(),
    })
    .default({ strategies: ['react'] }),
  repeat: z.number().int().min(1).max(100).default(1),
  /**
   * What a run that waits for approval gets: approve (default) or reject. A call whose outcome is unknown is always
   * rejected.
   */
  approvals: z.enum(['approve', 'reject']).default('approve'),
  cases: z.array(caseSchema).min(1),
});

export type EvalSuite = z.infer<typeof suiteSchema>;
export type EvalCase = EvalSuite['cases'][number];
export type EvalExpect = EvalCase['expect'];
