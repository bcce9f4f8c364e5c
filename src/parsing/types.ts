import type { JsonObject, JsonSchema } from '../core/json.ts';
import type { CallFormat } from './formats/call-format.ts';

/** A half-open range of UTF-16 offsets into the text that was parsed. */
export interface Span {
  start: number;
  end: number;
}

/**
 * A tool the model may call. `hasRequiredArgs: false` lets a bare
 * `{"name": "x"}` found in prose count as a call; left out, the extractor
 * assumes the tool needs arguments (precision over recall).
 */
export interface ToolRef {
  name: string;
  hasRequiredArgs?: boolean;
  description?: string;
  /**
   * The tool's input schema. Where it asks for an array or an object and the
   * model sent a string holding one, the string is read (typed_by_schema).
   * Left out, `hasRequiredArgs` is read from its `required` list.
   */
  inputSchema?: JsonSchema;
}

/** A native tool call as the model API returned it: the arguments string untouched. */
export interface NativeToolCall {
  id?: string;
  name: string;
  arguments: string;
}

/**
 * A whole assistant message, as the extractor reads it: the answer text, the
 * reasoning (a `reasoning_content` field; `<think>…</think>` in the text is
 * found too), the native tool calls, and whether the reply was cut off.
 */
export interface AssistantMessageInput extends ExtractOptions {
  text?: string;
  reasoning?: string;
  toolCalls?: readonly NativeToolCall[];
  /** The provider's finish reason; 'length' means the reply was cut off (same as truncated: true). */
  finishReason?: string;
}

export interface ExtractOptions {
  /** The tools on offer: names or refs. Calls to anything else are never returned. */
  tools: readonly (ToolRef | string)[];
  /** The model stopped on its token limit (finish_reason 'length'): calls cut at the end are dropped. */
  truncated?: boolean;
  /**
   * Call formats to read besides the built-in lexicon (from `parsing.formats`
   * or derived from the model's chat template). They are tried first: where
   * one of their envelopes overlaps a built-in one, theirs wins.
   */
  formats?: readonly CallFormat[];
}

/** A tool call found in model text. */
export interface ExtractedCall {
  name: string;
  arguments: JsonObject;
  /** The text the call came from (its envelope, or the JSON value holding it). */
  raw: string;
  /** Offsets into the text the call was read from (see `origin`). */
  span: Span;
  /**
   * Where the call was read: the answer text, the reasoning (only when no call
   * was outside it), or a native tool call (`span` then covers its arguments string).
   */
  origin?: 'text' | 'reasoning' | 'native';
  /** The native call's id, as the model sent it. */
  id?: string;
}

/** The codes of failed call attempts, in PARSE_DIAGNOSTIC_CODES (CALL_FAILURE_CODES). */
const CALL_FAILURES = [
  'unknown_tool',
  'truncated',
  'invalid_json',
  'invalid_arguments',
  'missing_arguments',
  'malformed_call',
] as const;

/**
 * The closed set of diagnostic codes. A public contract like the error codes:
 * add codes, never rename them.
 * - repaired: a call was read after repairing its JSON (`repairs` says how).
 * - decoded_string_arguments: `arguments` was a JSON string and was decoded.
 * - unknown_tool: a call named a tool that is not on offer (`name`).
 * - truncated: a call was cut off at the end of the text.
 * - invalid_json: a call's JSON could not be read, even after repairs (`position`).
 * - invalid_arguments: a call's arguments are not a JSON object, or are past the
 *   size, depth or number limits (see docs/parsing.md).
 * - missing_arguments: a declared tool was named without arguments outside any call envelope.
 * - malformed_call: a call envelope holds nothing that reads as a call.
 * - ignored_example: something call-shaped is an example or quoted data, not a call.
 * - limit_reached: the extractor stopped early on a pathological input.
 * - call_in_reasoning: the only call of the reply was at the end of its
 *   reasoning; it was taken as the call.
 * - ignored_reasoning_call: a call in the reasoning was not taken (there are
 *   calls outside it, or it is not at its end or not complete).
 */
export const PARSE_DIAGNOSTIC_CODES = [
  'repaired',
  'decoded_string_arguments',
  ...CALL_FAILURES,
  'ignored_example',
  'limit_reached',
  'call_in_reasoning',
  'ignored_reasoning_call',
] as const;

export type ParseDiagnosticCode = (typeof PARSE_DIAGNOSTIC_CODES)[number];

/** Diagnostics that mean the model tried to call a tool and failed: worth telling it. */
export const CALL_FAILURE_CODES: readonly ParseDiagnosticCode[] = CALL_FAILURES;

/**
 * The closed set of repairs, as reported in `repairs` lists. Each one changes
 * syntax only; none invents a value.
 */
export const REPAIR_KINDS = [
  'removed_comments',
  'removed_trailing_commas',
  'single_quoted_strings',
  'quoted_keys',
  'python_literals',
  'escaped_control_characters',
  'fixed_invalid_escapes',
  'normalized_whitespace',
  'closed_string_at_end',
  'closed_brackets_at_end',
  'jsonrepair',
  'unwrapped_fence',
  'decoded_double_encoding',
  'null_arguments_as_empty',
  'stripped_name_prefix',
  // Envelopes recognised from their inner markers.
  'missing_opener',
  'missing_closer',
  'broken_closer',
  'namespaced_tags',
  'leaked_sentinel',
  // Names.
  'stripped_name_index',
  'cut_name_at_invalid_character',
  // Argument text.
  'unescaped_inner_quotes',
  'triple_quoted_strings',
  'inserted_missing_closer',
  'split_concatenated_objects',
  'literal_escape_sequences',
  'collapsed_doubled_braces',
  'typed_by_schema',
  // Shapes without a family (src/parsing/shapes/): calls found from a declared tool's name.
  'declared_name_call',
  'tool_named_tag',
  'transcript_call',
  'detokenized_skeleton',
  // Argument text.
  'typographic_quotes',
  // A call between special-token-like markers no family lists (shapes/special-envelope.ts).
  'unknown_envelope',
  // Argument markup repaired inside an envelope (a missing `<arg_value>` opener, a doubled closer).
  'repaired_argument_markup',
] as const;

export type RepairKind = (typeof REPAIR_KINDS)[number];

export interface ParseDiagnostic {
  code: ParseDiagnosticCode;
  /** What was wrong, for people and for the model. */
  message: string;
  span?: Span;
  /** Where JSON reading failed (absolute offset into the text). */
  position?: number;
  /** The tool name involved, when there is one. */
  name?: string;
  repairs?: RepairKind[];
  /** unknown_tool: the declared tool the name most likely meant. */
  suggestion?: string;
}

export interface ExtractionResult {
  calls: ExtractedCall[];
  /** The text that is not part of a call, trimmed. */
  content: string;
  diagnostics: ParseDiagnostic[];
}
