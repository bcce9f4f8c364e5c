import { z } from 'zod';

/**
 * The policy test suite file (docs/policy-test.md). Unknown keys are errors: a typo must not turn an
 * expectation off. Each kind of expectation is its own strict object, chosen by the key that names it
 * (see EXPECTATION_KINDS), so an error names the keys of that kind rather than of every kind.
 */

/** The gate's decisions an expectation may ask for (GateDecisionKind). */
export const DECISION_NAMES = ['allowed', 'denied', 'approval_required', 'dry_run', 'invalid'] as const;

const toolPattern = z
  .string()
  .regex(/^[A-Za-z0-9_.*/-]+$/, 'a tool pattern is "server/tool", a bare tool name, or a glob like "power-exchange/*"');

const name = z.string().min(1, 'a name must not be empty').max(200, 'a name has at most 200 characters').optional();
const on = (key: string) =>
  z.literal(true, { error: `${key}: true turns this expectation on; remove the entry to turn it off` });

const decision = z.enum(DECISION_NAMES, {
  error: `a decision is one of ${DECISION_NAMES.join(', ')}`,
});

const noNewDenialsSchema = z.strictObject({ name, noNewDenials: on('noNewDenials') });
const noNewApprovalsSchema = z.strictObject({ name, noNewApprovals: on('noNewApprovals') });
const answerUnchangedSchema = z.strictObject({ name, answerUnchanged: on('answerUnchanged') });
const decisionSchema = z.strictObject({
  name,
  tool: toolPattern,
  /** A CEL expression over the call: args, tool, tenant, user, context. */
  when: z.string().min(1, 'a when: condition must not be empty (remove the key to check every call)').optional(),
  decision: z.union([decision, z.array(decision).min(1, 'give at least one decision')], {
    error: `a decision is one of ${DECISION_NAMES.join(', ')}, or a list of them`,
  }),
});
const neverSchema = z.strictObject({
  name,
  /** The tenant whose runs are checked; absent: every run. */
  tenant: z.string().min(1, 'a tenant id must not be empty').optional(),
  never: toolPattern,
});

/** The key that says which kind an expectation is, and that kind's schema. */
export const EXPECTATION_KINDS = {
  noNewDenials: noNewDenialsSchema,
  noNewApprovals: noNewApprovalsSchema,
  answerUnchanged: answerUnchangedSchema,
  tool: decisionSchema,
  never: neverSchema,
} as const;

export type ExpectationKey = keyof typeof EXPECTATION_KINDS;

export const fileRunSchema = z.strictObject({
  /** A JSONL export (`toolgate runs export`), relative to the suite. */
  file: z.string().min(1, 'a file must not be empty, e.g. file: ./runs/orders.jsonl'),
});
export const idRunSchema = z.strictObject({
  /** A run id, read from --store or --url. */
  id: z.string().min(1, 'a run id must not be empty, e.g. id: run_01J…'),
});

const RUNS_NEEDED = 'a list of recorded runs, e.g. runs: [{ file: ./runs/orders.jsonl }, { id: run_01J… }]';
const EXPECT_NEEDED = 'a list of expectations, e.g. expect: [{ noNewDenials: true }]';

export const suiteSchema = z.strictObject({
  description: z.string().optional(),
  /** The configuration under test (relative to the suite); default: the one the CLI finds. */
  config: z.string().min(1, 'config: names a file, e.g. config: ./toolgate.yaml').optional(),
  /** A file with tools: and tenants: that replaces the configuration's policy (relative to the suite). */
  policy: z.string().min(1, 'policy: names a file, e.g. policy: ./policy.yaml').optional(),
  /** Checked one by one by the loader (file or id). */
  runs: z.array(z.unknown(), { error: RUNS_NEEDED }).min(1, RUNS_NEEDED),
  /** Checked one by one by the loader (by the key that names the kind). */
  expect: z.array(z.unknown(), { error: EXPECT_NEEDED }).min(1, EXPECT_NEEDED),
});

export type GateDecisionName = (typeof DECISION_NAMES)[number];
