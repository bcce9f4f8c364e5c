import type { TurnRenderer } from './render-turn.ts';
import { isClosedToken, markerPieces, tokenTagAtEnd } from './text-diff.ts';

const PROBE_REASONING = 'Probe reasoning of the assistant R';
const PROBE_ANSWER = 'Probe final answer of the assistant A';
/** Message fields templates read reasoning from. */
const REASONING_FIELDS = ['reasoning_content', 'thinking', 'reasoning'] as const;

export interface ReasoningFound {
  markers?: { begin: string; end: string };
  note?: string;
}

/**
 * The text between reasoning and answer, cut after the tag that closes the
 * reasoning's own tag (`<|close|>think<|sep|>` of `<|open|>think<|sep|>`),
 * when the answer has an opener of its own after it.
 */
function closingOnly(end: string, begin: string | undefined): string {
  const tag = begin === undefined ? undefined : /^(<[^<>\s]+>)([A-Za-z_][\w.-]*)(<[^<>\s]+>)$/.exec(begin);
  if (tag?.[2] === undefined || tag[3] === undefined) return end;
  const at = end.indexOf(`${tag[2]}${tag[3]}`);
  return at <= 0 ? end : end.slice(0, at + tag[2].length + tag[3].length);
}

/**
 * The reasoning markers: render an answer with reasoning and read the text
 * around it. When the generation prompt opens the reasoning (`<think>` at its
 * end), the model only writes the closer; the opener is still the marker.
 */
export function findReasoning(renderer: TurnRenderer, source: string): ReasoningFound {
  const lastPromptPiece =
    tokenTagAtEnd(renderer.generationPrompt.trimEnd()) ?? markerPieces(renderer.generationPrompt).at(-1);
  for (const field of REASONING_FIELDS) {
    const turn = renderer.withContent(PROBE_ANSWER, { [field]: PROBE_REASONING });
    if (!turn.ok) continue;
    const at = turn.text.indexOf(PROBE_REASONING);
    const answerAt = turn.text.indexOf(PROBE_ANSWER);
    if (at < 0 || answerAt < at) continue;
    let begin = turn.text.slice(0, at).trim();
    const end = closingOnly(
      turn.text.slice(at + PROBE_REASONING.length, answerAt).trim(),
      begin === '' ? lastPromptPiece : begin,
    );
    if (end === '') continue;
    if (begin === '' && lastPromptPiece !== undefined && isClosedToken(lastPromptPiece)) begin = lastPromptPiece;
    const closer = /^<\/([^<>\s]+)>$/.exec(end);
    if (begin === '' && closer !== null && source.includes(`<${closer[1] ?? ''}>`)) begin = `<${closer[1] ?? ''}>`;
    if (begin === '')
      return { markers: { begin: '', end }, note: `reasoning ends at ${JSON.stringify(end)}; nothing opens it` };
    return { markers: { begin, end } };
  }
  // A template that drops past reasoning still opens it in the generation prompt.
  if (lastPromptPiece !== undefined && /^<[^/<>\s]+>$/.test(lastPromptPiece)) {
    const closer = `</${lastPromptPiece.slice(1)}`;
    if (source.includes(closer))
      return {
        markers: { begin: lastPromptPiece, end: closer },
        note:
          `reasoning markers read off the generation prompt ` +
          `(${JSON.stringify(lastPromptPiece)}), not a rendered reasoning`,
      };
  }
  return {};
}

/**
 * Empty reasoning a template writes before calls (`<think>\n\n</think>`), or
 * the closer of reasoning the generation prompt opened: not part of the calls.
 */
export function stripLeadingReasoning(text: string, markers: { begin: string; end: string } | undefined): string {
  let rest = text.trimStart();
  for (let round = 0; round < 3; round += 1) {
    const before = rest;
    if (markers !== undefined && markers.end !== '') {
      if (
        markers.begin !== '' &&
        rest.startsWith(markers.begin) &&
        rest.slice(markers.begin.length).trimStart().startsWith(markers.end)
      ) {
        rest = rest.slice(markers.begin.length).trimStart().slice(markers.end.length).trimStart();
      } else if (rest.startsWith(markers.end)) rest = rest.slice(markers.end.length).trimStart();
    }
    const lone = /^<\/[^<>\s]+>/.exec(rest);
    if (lone !== null) rest = rest.slice(lone[0].length).trimStart();
    const empty = /^<([^/<>\s]+)>\s*<\/\1>/.exec(rest);
    if (empty !== null) rest = rest.slice(empty[0].length).trimStart();
    if (rest === before) break;
  }
  return rest;
}
