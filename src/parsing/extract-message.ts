import { describeError } from '../core/describe-error.ts';
import { excerpt, toolMap } from './extract-context.ts';
import { extractDetailed } from './extract-tool-calls.ts';
import { harmonyContent } from './envelopes/harmony.ts';
import { findThinkBlocks, withoutReasoning } from './envelopes/think.ts';
import { readArgumentObjects } from './repair-arguments.ts';
import type { ArgumentsFailureReason } from './repair-arguments.ts';
import { cleanToolName, unknownToolDiagnostic } from './tool-names.ts';
import { typeBySchema } from './type-by-schema.ts';
import { CALL_FAILURE_CODES } from './types.ts';
import type { ArgumentsError } from '../core/tools.ts';
import type {
  AssistantMessageInput,
  ExtractedCall,
  ExtractionResult,
  NativeToolCall,
  ParseDiagnostic,
  RepairKind,
  Span,
  ToolRef,
} from './types.ts';

/**
 * Reads a whole assistant message: native tool calls (their arguments strings
 * repaired like text calls), calls written in the answer text, and — when the
 * reply is nothing but reasoning — a complete call at the end of the reasoning.
 * Every call is typed by its tool's schema where the model sent a string for
 * an array or an object. Never throws.
 */

export interface MessageExtraction {
  result: ExtractionResult;
  /**
   * One entry per native call, in order: the calls read from it (more than
   * one when its arguments held several objects), or undefined when it could
   * not be used (its diagnostics say why).
   */
  native: (ExtractedCall[] | undefined)[];
  /**
   * One entry per native call, in order: why its arguments could not be read
   * (as repairArguments says it), or undefined when they were read or were not
   * looked at (a tool that is not on offer).
   */
  nativeErrors: (ArgumentsError | undefined)[];
  /** Spans of the text that left the content (the stream filter needs them). */
  removed: Span[];
}

interface Tools {
  refs: Map<string, ToolRef>;
  names: string[];
  has: (name: string) => boolean;
}

function toolsOf(input: AssistantMessageInput): Tools {
  const refs = toolMap(input.tools);
  return { refs, names: [...refs.keys()], has: (name) => refs.has(name) };
}

function pushRepaired(diagnostics: ParseDiagnostic[], call: ExtractedCall, repairs: readonly RepairKind[]): void {
  if (repairs.length === 0) return;
  const list = [...new Set(repairs)];
  diagnostics.push({
    code: 'repaired',
    message: `Repaired the call to "${call.name}": ${list.join(', ')}.`,
    span: call.span,
    name: call.name,
    repairs: list,
  });
}

/** Arguments typed by the tool's schema; the repairs list gains typed_by_schema when a value changed. */
function typed(call: ExtractedCall, tool: ToolRef | undefined, repairs: RepairKind[]): void {
  if (tool?.inputSchema === undefined) return;
  const result = typeBySchema(call.arguments, tool.inputSchema);
  if (result.changes.length === 0) return;
  call.arguments = result.arguments;
  repairs.push('typed_by_schema');
}

/** A failure of a native arguments string, as the diagnostic a model can act on. */
function nativeFailure(
  call: NativeToolCall,
  name: string,
  failure: { message: string; position: number; reason: ArgumentsFailureReason },
): ParseDiagnostic {
  const span = { start: 0, end: call.arguments.length };
  if (failure.reason === 'cut')
    return {
      code: 'truncated',
      message: `The call to "${name}" was cut off before its arguments were complete (the reply hit its length limit).`,
      span,
      name,
    };
  if (failure.reason !== 'invalid_json')
    return {
      code: 'invalid_arguments',
      message: `The arguments of the call to "${name}" cannot be used: ${failure.message}`,
      span,
      name,
    };
  const near = call.arguments === '' ? '' : ` Near: ${excerpt(call.arguments, failure.position)}`;
  return {
    code: 'invalid_json',
    message: `The arguments of the call to "${name}" cannot be used: ${failure.message}${near}`,
    span,
    name,
    position: failure.position,
  };
}

/** A native call read: its calls, or why its arguments could not be read; neither for a tool not on offer. */
interface NativeRead {
  calls?: ExtractedCall[];
  error?: ArgumentsError;
}

function readNativeCall(
  call: NativeToolCall,
  tools: Tools,
  scope: { truncated: boolean; diagnostics: ParseDiagnostic[] },
): NativeRead {
  const { diagnostics } = scope;
  const cleaned = cleanToolName(call.name, tools.has);
  const name = cleaned.name;
  const tool = tools.refs.get(name);
  const span = { start: 0, end: call.arguments.length };
  if (tool === undefined) {
    diagnostics.push(unknownToolDiagnostic(name, tools.names, span));
    return {};
  }
  // Several objects in a row (a server that concatenated parallel calls) are one call each.
  const read = readArgumentObjects(call.arguments, scope.truncated ? { truncated: true } : {});
  if (!read.ok) {
    diagnostics.push(nativeFailure(call, name, read));
    return { error: { message: read.message, position: read.position } };
  }
  const calls = read.objects.map((args) => {
    const extracted: ExtractedCall = {
      name,
      arguments: args,
      raw: call.arguments,
      span,
      origin: 'native',
      ...(call.id === undefined ? {} : { id: call.id }),
    };
    const repairs: RepairKind[] = [...cleaned.repairs, ...read.repairs];
    typed(extracted, tool, repairs);
    pushRepaired(diagnostics, extracted, repairs);
    return extracted;
  });
  return { calls };
}

const CLOSE_THINK = '</think>';

/** Where a reply's reasoning is: the reasoning field, and `<think>` blocks of the text (their inside). */
interface ReasoningSource {
  text: string;
  /** Offset of `text` in the answer text (0 for the reasoning field, which is its own text). */
  offset: number;
}

function reasoningSources(input: AssistantMessageInput, text: string): ReasoningSource[] {
  const sources: ReasoningSource[] = [];
  if (input.reasoning !== undefined && input.reasoning.trim() !== '')
    sources.push({ text: input.reasoning, offset: 0 });
  for (const block of findThinkBlocks(text)) {
    const open = text.startsWith('<think>', block.start) ? block.start + '<think>'.length : block.start;
    const close = text.slice(block.start, block.end).endsWith(CLOSE_THINK) ? block.end - CLOSE_THINK.length : block.end;
    if (close > open) sources.push({ text: text.slice(open, close), offset: open });
  }
  return sources;
}

/**
 * The calls at the very end of a reasoning text: those in the last envelope
 * and in the envelopes right before it with only whitespace between, when
 * nothing but whitespace follows. A failed attempt there counts the same way
 * (its diagnostics are kept, so the model can be told).
 */
function trailingCalls(
  source: ReasoningSource,
  extraction: { result: ExtractionResult; removed: Span[] },
): { calls: ExtractedCall[]; failures: ParseDiagnostic[] } | undefined {
  const spans = [...extraction.removed].sort((a, b) => a.start - b.start);
  const last = spans.at(-1);
  if (last === undefined || source.text.slice(last.end).trim() !== '') return undefined;
  let start = last.start;
  for (let i = spans.length - 2; i >= 0; i -= 1) {
    const span = spans[i];
    if (span === undefined || span.end > start || source.text.slice(span.end, start).trim() !== '') break;
    start = span.start;
  }
  const within = (span: Span | undefined): boolean => span !== undefined && span.start >= start;
  return {
    calls: extraction.result.calls.filter((call) => within(call.span)),
    failures: extraction.result.diagnostics.filter((d) => CALL_FAILURE_CODES.includes(d.code) && within(d.span)),
  };
}

/**
 * Reasoning demoted, not ignored: when the reply holds nothing outside its
 * reasoning, a complete call at the end of the (last) reasoning is the call.
 * Calls elsewhere in the reasoning are plans, recorded and never run.
 */
function readReasoning(
  input: AssistantMessageInput,
  scope: { text: string; replyIsOnlyReasoning: boolean; truncated: boolean; diagnostics: ParseDiagnostic[] },
): ExtractedCall[] {
  const sources = reasoningSources(input, scope.text);
  let taken: ExtractedCall[] = [];
  let ignored = 0;
  for (let i = sources.length - 1; i >= 0; i -= 1) {
    const source = sources[i];
    if (source === undefined) continue;
    const extraction = extractDetailed(source.text, {
      tools: input.tools,
      truncated: scope.truncated && i === sources.length - 1,
      ...(input.formats === undefined ? {} : { formats: input.formats }),
    });
    const result = extraction.result;
    const failureCount = result.diagnostics.filter((d) => CALL_FAILURE_CODES.includes(d.code)).length;
    const trailing =
      scope.replyIsOnlyReasoning && taken.length === 0 && i === sources.length - 1
        ? trailingCalls(source, extraction)
        : undefined;
    if (trailing !== undefined) {
      for (const call of trailing.calls) {
        call.origin = 'reasoning';
        call.span = { start: call.span.start + source.offset, end: call.span.end + source.offset };
        scope.diagnostics.push({
          code: 'call_in_reasoning',
          message: `Took the call to "${call.name}" from the end of the reasoning: the reply has no call outside it.`,
          span: call.span,
          name: call.name,
        });
      }
      for (const d of result.diagnostics) {
        const isTakenFailure = trailing.failures.includes(d);
        const belongsToTaken = d.code === 'repaired' || d.code === 'decoded_string_arguments';
        if (isTakenFailure || (belongsToTaken && trailing.calls.some((c) => d.name === c.name))) {
          scope.diagnostics.push(
            d.span === undefined
              ? d
              : { ...d, span: { start: d.span.start + source.offset, end: d.span.end + source.offset } },
          );
        }
      }
      taken = trailing.calls;
      ignored += result.calls.length - trailing.calls.length + failureCount - trailing.failures.length;
    } else {
      ignored += result.calls.length + failureCount;
    }
  }
  if (ignored > 0) {
    scope.diagnostics.push({
      code: 'ignored_reasoning_call',
      message:
        `Ignored ${ignored === 1 ? 'a call' : `${ignored} calls`} written in the reasoning: only ` +
        `a complete call at the very end of the reasoning of a reply that holds nothing else is taken.`,
    });
  }
  return taken;
}

/** Same tool, same arguments (JSON read back from the same model output: key order is kept, so the text compares). */
function sameCall(a: ExtractedCall, b: ExtractedCall): boolean {
  return a.name === b.name && JSON.stringify(a.arguments) === JSON.stringify(b.arguments);
}

/** Schema typing for calls read from text (native calls are typed as they are read). */
function typeTextCalls(calls: ExtractedCall[], tools: Tools, diagnostics: ParseDiagnostic[]): void {
  for (const call of calls) {
    const repairs: RepairKind[] = [];
    typed(call, tools.refs.get(call.name), repairs);
    if (repairs.length === 0) continue;
    const existing = diagnostics.find(
      (d) => d.code === 'repaired' && d.name === call.name && d.span?.start === call.span.start,
    );
    if (existing === undefined) pushRepaired(diagnostics, call, repairs);
    else {
      existing.repairs = [...new Set([...(existing.repairs ?? []), ...repairs])];
      existing.message = `Repaired the call to "${call.name}": ${existing.repairs.join(', ')}.`;
    }
  }
}

export function extractMessageDetailed(input: AssistantMessageInput): MessageExtraction {
  const text = input.text ?? '';
  const truncated = input.truncated === true || input.finishReason === 'length';
  const tools = toolsOf(input);
  const options = { tools: input.tools, truncated, ...(input.formats === undefined ? {} : { formats: input.formats }) };
  const native = input.toolCalls ?? [];
  const diagnostics: ParseDiagnostic[] = [];
  const reads = native.map((call) => readNativeCall(call, tools, { truncated, diagnostics }));
  const nativeCalls = reads.map((read) => read.calls);
  const fromText = text.trim() === '' ? undefined : extractDetailed(text, options);
  let calls: ExtractedCall[] = [];
  let content = text.trim();
  let removed: Span[] = [];
  if (native.length > 0) {
    calls = nativeCalls.flatMap((list) => list ?? []);
    // A serving stack that parsed the calls sometimes leaves their text in the content too: drop those copies.
    if (
      fromText !== undefined &&
      fromText.result.calls.length > 0 &&
      fromText.result.calls.every((t) => calls.some((n) => sameCall(n, t)))
    ) {
      content = fromText.result.content;
      removed = fromText.removed;
    }
  } else if (fromText !== undefined) {
    calls = fromText.result.calls.map((call) => ({ ...call, origin: 'text' as const }));
    diagnostics.push(...fromText.result.diagnostics);
    content = fromText.result.content;
    removed = fromText.removed;
  }
  const outside = calls.length > 0 || diagnostics.some((d) => CALL_FAILURE_CODES.includes(d.code));
  const nothingButReasoning = withoutReasoning(text).trim() === '';
  const reasoningCalls = readReasoning(input, {
    text,
    replyIsOnlyReasoning: !outside && nothingButReasoning,
    truncated: truncated && nothingButReasoning,
    diagnostics,
  });
  if (calls.length === 0) calls = reasoningCalls;
  // A Harmony reply (GPT-OSS): the answer is its final channel; the analysis channel is reasoning.
  const harmony = harmonyContent(content);
  if (harmony !== undefined) content = harmony.content;
  if (native.length === 0) typeTextCalls(calls, tools, diagnostics);
  return {
    result: { calls, content, diagnostics },
    native: nativeCalls,
    nativeErrors: reads.map((read) => read.error),
    removed,
  };
}

/**
 * Finds the tool calls of an assistant message — native calls, calls written
 * in its text in any model family's syntax, a call left at the end of its
 * reasoning — with the content that is left and a diagnostic for every call
 * that could not be used and every repair made. Never throws.
 */
export function extractFromMessage(input: AssistantMessageInput): ExtractionResult {
  try {
    return extractMessageDetailed(input).result;
  } catch (error) {
    const message = describeError(error);
    return {
      calls: [],
      content: (input.text ?? '').trim(),
      diagnostics: [{ code: 'limit_reached', message: `Could not read the message for calls: ${message}` }],
    };
  }
}
