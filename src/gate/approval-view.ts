import type { JsonObject, JsonSchema, JsonValue } from '../core/json.ts';
import type { ToolSpec } from '../core/tools.ts';
import { normalizeArguments, type ValidationIssue, type Validator } from '../validation/index.ts';
import { redactArguments } from './create-redactor.ts';
import { injectedSchemaView } from './injected-schema-view.ts';

export interface ApprovalViewInput {
  tool: ToolSpec;
  /** The resolved policy's `inject`: the arguments the server fills in. */
  inject: Readonly<Record<string, string>>;
}

/** A call waiting for a person, as that person handles it. */
export interface ApprovalView {
  /**
   * What the person is shown (approval_required, the run's pendingApproval, a
   * gateway client's prompt): the arguments the call would run with —
   * normalised, the server's values injected — redacted.
   */
  shown(args: JsonObject, redact: (value: JsonValue) => JsonValue): JsonObject;
  /** The schema an edit is held to: the tool's, without the injected arguments. */
  editSchema: JsonSchema;
  /**
   * What keeps an edit from running, checked as the gate will check it: the
   * injected keys are not the person's (the server's values replace whatever
   * is sent for them), the rest is normalised and must fit `editSchema`.
   * Empty: the edit can run.
   */
  checkEdit(edit: JsonObject, validator: Validator): ValidationIssue[];
}

/**
 * What a person deciding on a call sees and may send back: one definition
 * for the engine (what it records and shows) and for the check of an edit
 * when it is sent (refused before it is recorded). Pure.
 */
export function approvalView(input: ApprovalViewInput): ApprovalView {
  const injected = Object.keys(input.inject);
  const editSchema = injectedSchemaView(input.tool.inputSchema, injected);
  return {
    shown: (args, redact) => redactArguments(args, redact),
    editSchema,
    checkEdit: (edit, validator) => {
      const own = Object.fromEntries(Object.entries(edit).filter(([key]) => !injected.includes(key)));
      const verdict = validator.validate(editSchema, normalizeArguments(input.tool.inputSchema, own).arguments);
      return verdict.ok ? [] : verdict.issues;
    },
  };
}
