import { describeError } from '../../core/describe-error.ts';
import type { CallFormat } from '../formats/call-format.ts';
import { readCallLayout } from './call-layout.ts';
import { compileTemplate } from './render-template.ts';
import { createTurnRenderer } from './render-turn.ts';
import type { ProbeCall, TurnRenderer } from './render-turn.ts';
import { findReasoning, stripLeadingReasoning } from './find-reasoning.ts';

export interface DeriveOptions {
  /** Shown in diagnostics: the format's id becomes `template:<id>`. */
  id?: string;
  bosToken?: string;
  eosToken?: string;
}

export type DeriveResult = { ok: true; format: CallFormat; notes: string[] } | { ok: false; reason: string };

/** Probe names and values: unlike anything a template writes by itself. */
export const PROBE_NAMES = ['tool_alpha', 'tool_beta', 'tool_gamma'] as const;
const PROBE_ARG = { key: 'alpha_key', value: 'alpha value' };
const PROBE_IDS = ['c00000000', 'c00000001', 'c00000002'];

function probeCall(name: string): ProbeCall {
  return { name, arguments: { [PROBE_ARG.key]: PROBE_ARG.value } };
}

/** A renderer whose calls show their arguments: `arguments` as an object first, as a JSON string second. */
export function pickRenderer(
  template: string,
  options: DeriveOptions,
  tools: readonly ProbeCall[] = PROBE_NAMES.map(probeCall),
): { ok: true; renderer: TurnRenderer; argumentsAs: 'object' | 'string' } | { ok: false; reason: string } {
  const compiled = compileTemplate(template);
  if (!compiled.ok) return compiled;
  let lastReason = 'the template does not render tool_calls of an assistant message';
  for (const argumentsAs of ['object', 'string'] as const) {
    const made = createTurnRenderer(compiled.template, { tools, argumentsAs, ...tokens(options) });
    if (!made.ok) return made;
    const sample = tools[0] ?? probeCall(PROBE_NAMES[0]);
    const one = made.renderer.withCalls([sample]);
    if (!one.ok) {
      lastReason = one.reason;
      continue;
    }
    if (!one.text.includes(sample.name)) continue;
    const firstValue = Object.values(sample.arguments).find((v) => typeof v === 'string');
    if (firstValue !== undefined && !one.text.includes(firstValue)) {
      lastReason = 'the template renders the tool name of a call but not its arguments';
      continue;
    }
    return { ok: true, renderer: made.renderer, argumentsAs };
  }
  return { ok: false, reason: lastReason };
}

function tokens(options: DeriveOptions): { bosToken?: string; eosToken?: string } {
  return {
    ...(options.bosToken === undefined ? {} : { bosToken: options.bosToken }),
    ...(options.eosToken === undefined ? {} : { eosToken: options.eosToken }),
  };
}

/**
 * Derives a model's tool-call format from its chat template by rendering
 * conversations that differ in one thing (one call or two, with or without
 * reasoning) and reading the format off the differences. Never throws.
 */
export function deriveFormat(template: string, options: DeriveOptions = {}): DeriveResult {
  try {
    const picked = pickRenderer(template, options);
    if (!picked.ok) return picked;
    const { renderer } = picked;
    const notes: string[] = [];
    if (picked.argumentsAs === 'string') notes.push('the template writes `arguments` as it is given: a JSON string');
    const reasoning = findReasoning(renderer, template);
    if (reasoning.note !== undefined) notes.push(reasoning.note);
    const clean = (text: string): string => stripLeadingReasoning(text, reasoning.markers);
    const one = renderer.withCalls([probeCall(PROBE_NAMES[0])]);
    if (!one.ok) return one;
    const two = renderer.withCalls([probeCall(PROBE_NAMES[0]), probeCall(PROBE_NAMES[1])]);
    const twoText = two.ok && two.text.includes(PROBE_NAMES[1]) ? clean(two.text) : undefined;
    const layout = readCallLayout({
      names: PROBE_NAMES,
      ids: PROBE_IDS,
      probe: PROBE_ARG,
      one: clean(one.text),
      ...(twoText === undefined ? {} : { two: twoText }),
    });
    if (!layout.ok) return layout;
    const id = `template:${options.id ?? 'chat-template'}`;
    const format: CallFormat = {
      id,
      origin: 'template',
      description: `Derived from the chat template${options.id === undefined ? '' : ` of ${options.id}`}.`,
      ...layout.format,
      ...(reasoning.markers === undefined ? {} : { reasoning: reasoning.markers }),
    };
    return { ok: true, format, notes: [...notes, ...layout.notes] };
  } catch (error) {
    // The analysis itself is written not to throw; this keeps a run alive if it ever does.
    return { ok: false, reason: `the template could not be analysed: ${describeError(error)}` };
  }
}
