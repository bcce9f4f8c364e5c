export {
  createValidator,
  DEFAULT_VALIDATOR_CACHE_SIZE,
  type Validator,
  type ValidatorOptions,
} from './create-validator.ts';
export { sharedValidator, DEFAULT_SHARED_VALIDATOR_CACHE_SIZE } from './shared-validator.ts';
export { describeSchema } from './describe-schema.ts';
export { formatIssuesForModel, type FormatIssuesInput } from './format-issues-for-model.ts';
export { ISSUE_CODES, isIssueCode, type IssueCode, type ValidationIssue, type ValidationResult } from './issues.ts';
export { appendPointer, fieldName, pointerSegments } from './json-pointer.ts';
export { cloneJson } from './json-utils.ts';
export {
  normalizeArguments,
  type Normalisation,
  type NormalisationRule,
  type NormalizeResult,
} from './normalize-arguments.ts';
export { parseLooseInteger, parseLooseNumber } from './parse-loose-number.ts';
