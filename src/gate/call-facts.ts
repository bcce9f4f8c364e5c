/**
 * Everything known about one tool call when the gate decides on it, as plain
 * data: the orchestrator gathers it (catalog lookup, parsing, the person's
 * decision, the hook) and decideCall turns it into one Decision.
 */
import type { Provenance } from '../core/events.ts';
import type { JsonObject, JsonValue } from '../core/json.ts';
import type { ToolSpec } from '../core/tools.ts';
import type { Normalisation, ValidationIssue } from '../validation/index.ts';
import type { InjectedArgument, InjectionContext } from './apply-injection.ts';
import type { AllowDecision } from './is-tool-allowed.ts';
import type { ResolvedToolPolicy } from './policy.ts';

/** A call's arguments after normalise → inject → validate (parsed once, where the call came in), ready to run. */
export interface PreparedCall {
  ok: true;
  arguments: JsonObject;
  normalisations: Normalisation[];
  injected: InjectedArgument[];
}

/** A call whose arguments cannot be used, with the reason the model is told. */
export interface RejectedCall {
  ok: false;
  /** 'invalid': the arguments cannot be used; 'denied': a required server-side value is missing. */
  decision: 'invalid' | 'denied';
  code: 'invalid_arguments' | 'denied';
  message: string;
  issues?: ValidationIssue[];
  normalisations: Normalisation[];
}

export type PrepareResult = PreparedCall | RejectedCall;

/** What the run's catalog says about the name the model called. */
export type ToolLookup =
  | { kind: 'visible'; tool: ToolSpec; policy: ResolvedToolPolicy }
  /** Hidden from this tenant: the model is told why rather than "no such tool". */
  | { kind: 'denied'; tool: ToolSpec; policy: ResolvedToolPolicy; reason: string }
  /** `known`: the visible names, so the model can correct itself. */
  | { kind: 'unknown'; known: readonly string[] };

/** A person's decision on this call (the shape of the orchestrator's ApprovalDecision). */
export interface ApprovalInput {
  decision: 'approve' | 'reject' | 'edit' | 'mark_done';
  reason?: string | undefined;
  /** With `mark_done`: what the person observed. */
  result?: JsonValue | undefined;
  userId?: string | undefined;
}

/**
 * What beforeToolCall said, after the orchestrator checked a rewrite against
 * the tool's schema (`issues` empty: the rewrite is valid). A hook that threw
 * is a `deny` whose reason says so.
 */
export type HookVerdict =
  | { action: 'allow' }
  | { action: 'deny'; reason: string }
  | { action: 'rewrite'; arguments: JsonObject; reason?: string | undefined; issues: readonly ValidationIssue[] };

export interface CallFacts {
  /** The name the model called (the exposed name). */
  name: string;
  lookup: ToolLookup;
  /**
   * The prepared (or rejected) arguments of a visible tool: the model's, or
   * the person's with an `edit`. Absent when nothing was prepared (no visible
   * tool, `mark_done`); a visible tool without them is refused.
   */
  prepared?: PrepareResult | undefined;
  approval?: ApprovalInput | undefined;
  /** Present once beforeToolCall has run on the arguments the call would run with. */
  hook?: HookVerdict | undefined;
  /** Whether the run's tenant may call the tool (isToolAllowed). */
  allowed: AllowDecision;
  dryRun: boolean;
  /** Untrusted outputs that entered the run before this call's turn: a write then needs a person. */
  untrusted: readonly Provenance[];
  /** Who makes the call (the tenant, the user, the run's context): what the tool's conditions read besides `args`. */
  caller?: InjectionContext | undefined;
}
