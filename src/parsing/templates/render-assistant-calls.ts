import { describeError } from '../../core/describe-error.ts';
import { pickRenderer } from './derive-format.ts';
import type { DeriveOptions } from './derive-format.ts';
import { findReasoning, stripLeadingReasoning } from './find-reasoning.ts';
import type { ProbeCall } from './render-turn.ts';

export type RenderCallsResult = { ok: true; text: string } | { ok: false; reason: string };

/** A probe value that every template renders as-is, to check a render shows the arguments. */
const PROBE_TOOL: ProbeCall = { name: 'tool_alpha', arguments: { alpha_key: 'alpha value' } };

/**
 * The text a model following the template writes for these calls: the
 * assistant turn the template renders, minus the generation prompt, the
 * end-of-turn and any empty reasoning before the calls. Never throws.
 */
export function renderAssistantCalls(
  template: string,
  calls: readonly ProbeCall[],
  options: DeriveOptions = {},
): RenderCallsResult {
  try {
    const picked = pickRenderer(template, options, [PROBE_TOOL, ...calls]);
    if (!picked.ok) return picked;
    const turn = picked.renderer.withCalls(calls);
    if (!turn.ok) return turn;
    const shown = calls.filter(
      (c, i) => occurrences(turn.text, c.name) >= calls.slice(0, i + 1).filter((d) => d.name === c.name).length,
    ).length;
    if (shown < calls.length)
      return {
        ok: false,
        reason: `the template renders only ${shown} of ${calls.length} calls of one assistant message`,
      };
    const reasoning = findReasoning(picked.renderer, template);
    return { ok: true, text: stripLeadingReasoning(turn.text, reasoning.markers) };
  } catch (error) {
    return { ok: false, reason: `the template could not be rendered: ${describeError(error)}` };
  }
}

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) count += 1;
  return count;
}
