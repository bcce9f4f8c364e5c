export type {
  ApprovalInput,
  CallFacts,
  HookVerdict,
  PreparedCall,
  PrepareResult,
  RejectedCall,
  ToolLookup,
} from './call-facts.ts';
export { approvalView, type ApprovalView, type ApprovalViewInput } from './approval-view.ts';
export {
  applyInjection,
  type InjectedArgument,
  type InjectionContext,
  type InjectionInput,
  type InjectionResult,
} from './apply-injection.ts';
export {
  checkToolPatterns,
  type CheckToolPatternsOptions,
  type PatternFinding,
  type PatternUse,
} from './check-tool-patterns.ts';
export { classifyTool, type ToolClassification } from './classify-tool.ts';
export { CONDITION_VARIABLES } from './cel-expression.ts';
export {
  checkPolicyConditions,
  compiledWhen,
  CONDITION_PARTS,
  type CompiledWhen,
  type ConditionsOf,
} from './compile-condition.ts';
export { conditionInput, type ConditionInput } from './condition-input.ts';
export { evaluateConditions, type ConditionOutcome, type ConditionRecord } from './evaluate-conditions.ts';
export {
  createRedactor,
  redactArguments,
  DEFAULT_MAX_REDACT_DEPTH,
  DEFAULT_REDACT_PATTERNS,
  REDACTED,
  TOO_DEEP,
} from './create-redactor.ts';
export { decide, type DecideInput, type PolicyVerdict } from './decide.ts';
export {
  decideCall,
  type ApprovalNeed,
  type Audited,
  type CallError,
  type Decision,
  type HookRecord,
} from './decide-call.ts';
export { injectedSchemaView } from './injected-schema-view.ts';
export { isToolAllowed, tenantRuleFor, type AllowDecision, type GateAudience } from './is-tool-allowed.ts';
export { mayDecide, type DecideAuthority } from './may-decide.ts';
export { isModelAllowed, matchModelPattern, type ModelAccess, type ModelDecision } from './is-model-allowed.ts';
export { compareSpecificity, matchToolPattern, toolRefOf, type ToolRef } from './match-tool-pattern.ts';
export {
  DEFAULT_TENANT_KEY,
  EMPTY_POLICY,
  type ApprovalMode,
  type ConditionalRule,
  type ConditionSchemas,
  type Policy,
  type PolicyCondition,
  type ResolvedToolPolicy,
  type TenantRule,
  type RoleRule,
  type ToolEffect,
  type ToolRule,
} from './policy.ts';
export { DEFAULT_APPROVAL, resolveToolPolicy } from './resolve-tool-policy.ts';
