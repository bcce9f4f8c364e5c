import type { Fence } from './envelopes/fence.ts';

/**
 * Is something call-shaped at this spot an example or quoted data rather than
 * a call? Models explain formats ("a call would look like: {…}"), quote tool
 * results, and show samples in "output" blocks. Only the sentence right before
 * it counts, so "e.g." earlier in a paragraph does not silence a later call.
 */

/** Fence info strings that mark a sample rather than something to run. */
const EXAMPLE_INFO_RE = /^(?:example|examples|sample|output|result|response|console|log|text-output)$/;

/** Cues that end the sentence introducing an example (English and Chinese). */
const CUE_RES: readonly RegExp[] = [
  /(?:for example|for instance|e\.g\.?|such as|an example|example|examples|sample|samples)$/i,
  /(?:would|might|could|will|should|may) look (?:something )?like(?: this)?$/i,
  /looks? like this$/i,
  new RegExp(
    String.raw`(?:you|one|they|the model) (?:would|could|can|might|should|may) (?:wr` +
      String.raw`ite|send|call it|output|reply with|respond with)(?: something like)?$`,
    'i',
  ),
  /(?:the )?(?:format|syntax|schema) (?:is|looks like|would be)$/i,
  /(?:tool|function|it|this|call|API) (?:returned|returns|gave back)$/i,
  /(?:result|results|output|response) (?:is|was|were)$/i,
  /^(?:output|result|results|response|tool result)$/i,
  /(?:例如|比如|示例|範例|范例|例子|举例|舉例|样例|範本)$/,
];

/** A lead-in that names a format ("XML parameter format:", "tool call syntax:")… */
const FORMAT_CUE_RE = /\b(?:format|syntax|template)$/i;
/** …unless it says the call follows in that format ("in the required format:", "using this syntax:"). */
const IN_FORMAT_RE = /\b(?:in|using|with|per|following|according to)\b[^.!?]*$/i;

/** Punctuation between a lead-in and what it introduces ("e.g.:", "例如：", "like this -"). */
const TRAILING = new Set([' ', '\t', '\r', '\n', ':', '：', ',', '，', '-', '–', '—', '*', '`', '>', '(']);

function stripTrailing(value: string): string {
  let end = value.length;
  while (end > 0 && TRAILING.has(value.charAt(end - 1))) end -= 1;
  return value.slice(0, end);
}
/** How far back a lead-in is looked for: one long line of prose at most. */
const LOOK_BACK = 400;

/** Start of the line holding `index`, looking back at most LOOK_BACK characters. */
function lineStartOf(text: string, index: number): number {
  const floor = Math.max(0, index - LOOK_BACK);
  for (let i = index - 1; i >= floor; i -= 1) if (text.charAt(i) === '\n') return i + 1;
  return floor;
}

/**
 * The sentence or line just before `anchor`. A blank line ends the lead-in,
 * except before a fenced block introduced by a line ending in `:` ("e.g.:" +
 * a blank line + the fence).
 */
function leadIn(text: string, anchor: number, fenced: boolean): string {
  const lineStart = lineStartOf(text, anchor);
  const sameLine = stripTrailing(text.slice(lineStart, anchor));
  if (sameLine.trim() !== '') return sameLine;
  // Nothing before it on its line: look at the previous non-empty line.
  const end = lineStart - 1;
  if (end <= 0) return '';
  const previous = text.slice(lineStartOf(text, end), end);
  if (previous.trim() !== '') return stripTrailing(previous);
  const beforeBlank = lineStartOf(text, end) - 1;
  if (!fenced || beforeBlank <= 0) return '';
  const introducing = text.slice(lineStartOf(text, beforeBlank), beforeBlank).trimEnd();
  return /[:：]$/.test(introducing) ? stripTrailing(introducing) : '';
}

/** A lead-in about what a model (not the writer) writes: "the model sometimes emits…", "earlier Qwen models use…". */
const THIRD_PERSON_RE = new RegExp(
  String.raw`\b(?:the|this|that|a|an|some|older|earlier|other|such)\s+(?:[\w.-]+\s+){0,2}models?\b[^.!?` +
    String.raw`]*\b(?:emits?|outputs?|writes?|uses?|generates?|produces?|returns?|formats?|ignores?)\b`,
  'i',
);

/** Why the text at `start` is an example, or undefined when it is not. */
export function exampleReason(text: string, start: number, fence?: Fence): string | undefined {
  if (fence !== undefined && EXAMPLE_INFO_RE.test(fence.info)) return `it is inside a "${fence.info}" block`;
  const anchor = fence?.span.start ?? start;
  const lineStart = lineStartOf(text, anchor);
  if (/^[ \t]*>/.test(text.slice(lineStart, anchor))) return 'it is quoted (blockquote)';
  if (fence === undefined && text.charAt(start - 1) === '`' && text.charAt(start - 2) !== '`')
    return 'it is inline code';
  // A call glued to the word before it (`Result[TOOL_CALLS]…`) is not introduced by that word.
  if (fence === undefined && /[\p{L}\p{N}]/u.test(text.charAt(anchor - 1))) return undefined;
  const lead = leadIn(text, anchor, fence !== undefined).trim();
  if (lead === '') return undefined;
  if (fence !== undefined && THIRD_PERSON_RE.test(lead.slice(-LOOK_BACK)))
    return 'its lead-in describes what a model writes';
  const tail = lead.slice(-80);
  if (CUE_RES.some((re) => re.test(tail))) return `it follows "${tail.slice(-40).trim()}"`;
  // "The XML tool call format:" introduces a format; "in the right format:" introduces the call itself.
  if (FORMAT_CUE_RE.test(tail) && !IN_FORMAT_RE.test(tail)) return `it follows "${tail.slice(-40).trim()}"`;
  return undefined;
}
