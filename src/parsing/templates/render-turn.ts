import { renderTemplate } from './render-template.ts';
import type { ParsedTemplate } from './render-template.ts';
import {
  commonPrefix,
  commonSuffix,
  isClosedToken,
  markerPieces,
  snapBack,
  snapForward,
  snapPastTokenTag,
} from './text-diff.ts';

/** A call as the analysis writes it into a conversation. */
export interface ProbeCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface TurnOptions {
  bosToken?: string;
  eosToken?: string;
  /** Tools offered in the conversation (names and schemas). */
  tools: readonly ProbeCall[];
  /** `arguments` as an object (what Hugging Face templates expect) or as a JSON string (OpenAI's wire shape). */
  argumentsAs: 'object' | 'string';
}

export type TurnResult = { ok: true; text: string } | { ok: false; reason: string };

export const PROBE_USER = 'Probe question from the user, number 7.';
export const PROBE_CONTENT = 'Probe answer text from the assistant Q';

function toolList(tools: readonly ProbeCall[]): unknown[] {
  return tools.map((t) => ({
    type: 'function',
    function: {
      name: t.name,
      description: `Probe tool ${t.name}.`,
      parameters: {
        type: 'object',
        properties: Object.fromEntries(Object.keys(t.arguments).map((k) => [k, { type: 'string', description: k }])),
        required: [],
      },
    },
  }));
}

/** Mistral's templates insist on 9 alphanumeric characters; others ignore ids or print them. */
function callId(index: number): string {
  return `c${String(index).padStart(8, '0')}`;
}

function assistantWithCalls(
  calls: readonly ProbeCall[],
  argumentsAs: 'object' | 'string',
  extra: Record<string, unknown>,
): Record<string, unknown> {
  return {
    role: 'assistant',
    content: '',
    ...extra,
    tool_calls: calls.map((c, i) => ({
      id: callId(i),
      type: 'function',
      function: { name: c.name, arguments: argumentsAs === 'object' ? c.arguments : JSON.stringify(c.arguments) },
    })),
  };
}

/**
 * Text the model writes for one assistant turn: the turn rendered after the
 * user message, minus the generation prompt (the prompt already holds it)
 * and minus the end-of-turn that a plain answer also ends with.
 */
export interface TurnRenderer {
  /** The generation prompt, as the template writes it after the user's message. */
  generationPrompt: string;
  withCalls(calls: readonly ProbeCall[], extra?: Record<string, unknown>): TurnResult;
  withContent(content: string, extra?: Record<string, unknown>): TurnResult;
}

export function createTurnRenderer(
  template: ParsedTemplate,
  options: TurnOptions,
  context: Record<string, unknown> = {},
): { ok: true; renderer: TurnRenderer } | { ok: false; reason: string } {
  /**
   * The conversation `messages` rendered with the probe's tools and `context`; `generation`: with the generation
   * prompt.
   */
  const render = (messages: unknown[], generation: boolean): TurnResult =>
    renderTemplate(template, {
      messages,
      tools: toolList(options.tools),
      add_generation_prompt: generation,
      bos_token: options.bosToken ?? '',
      eos_token: options.eosToken ?? '',
      ...context,
    });
  const user = { role: 'user', content: PROBE_USER };
  const prompt = render([user], true);
  if (!prompt.ok) return prompt;
  const plain = render([user, { role: 'assistant', content: PROBE_CONTENT }], false);
  if (!plain.ok) return plain;
  const contentAt = plain.text.lastIndexOf(PROBE_CONTENT);
  if (contentAt < 0) return { ok: false, reason: 'the template does not render the content of an assistant message' };
  const endOfTurn = plain.text.slice(contentAt + PROBE_CONTENT.length);
  // The end-of-turn's first token (`<|im_end|>`, `</s>`): some templates write
  // it, or more after it, where a plain answer ends differently.
  const endToken = markerPiecesFirst(endOfTurn);
  const userOnly = render([user], false);
  const generation = userOnly.ok
    ? prompt.text.slice(snapBack(prompt.text, commonPrefix(prompt.text, userOnly.text)))
    : '';
  // `keep`: the call names, which the cut at the end token must not drop
  // (GigaChat ends the empty answer with `<|message_sep|>` and writes the
  // call as the next role's message).
  const isolate = (full: string, keep: readonly string[] = []): string => {
    let start = full.startsWith(prompt.text) ? prompt.text.length : snapBack(full, commonPrefix(prompt.text, full));
    start += promptTailAt(generation, full.slice(start));
    let end =
      full.length -
      snapPastTokenTag(
        full,
        snapForward(full, full.length - commonSuffix(full, endOfTurn, Math.min(endOfTurn.length, full.length - start))),
      );
    const kept = keep.reduce((at, name) => {
      const found = full.indexOf(name, start);
      return found < 0 ? at : Math.max(at, found + name.length);
    }, start);
    const cut = endToken === '' ? -1 : full.indexOf(endToken, kept);
    if (cut >= 0 && cut < full.length - end) end = full.length - cut;
    return full.slice(start, Math.max(start, full.length - end));
  };
  const renderer: TurnRenderer = {
    generationPrompt: generation,
    withCalls(calls, extra = {}) {
      const full = render([user, assistantWithCalls(calls, options.argumentsAs, extra)], false);
      return full.ok
        ? {
            ok: true,
            text: isolate(
              full.text,
              calls.map((c) => c.name),
            ),
          }
        : full;
    },
    withContent(content, extra = {}) {
      const full = render([user, { role: 'assistant', content, ...extra }], false);
      return full.ok ? { ok: true, text: isolate(full.text) } : full;
    },
  };
  return { ok: true, renderer };
}

function markerPiecesFirst(text: string): string {
  const pieces = markerPieces(text);
  const first = pieces[0] ?? '';
  if (!isClosedToken(first)) return '';
  // A delimiter of the template's own tag syntax (`<|close|>response<|sep|>`) is no end token by itself: the whole tag
  // is.
  const rest = text.slice(text.indexOf(first) + first.length);
  const [, word, end] = pieces;
  if (
    word !== undefined &&
    end !== undefined &&
    /^[A-Za-z_]/.test(word) &&
    isClosedToken(end) &&
    rest.startsWith(`${word}${end}`)
  )
    return `${first}${word}${end}`;
  return first;
}

/**
 * A turn that starts with the end of the generation prompt (`<|CHATBOT_TOKEN|>`)
 * when the prompt also says more before it (a system note only the
 * generation prompt adds): the length of that shared piece.
 */
function promptTailAt(generation: string, turn: string): number {
  for (let k = Math.min(generation.length, turn.length); k > 0; k -= 1) {
    const piece = generation.slice(generation.length - k);
    if (
      piece.trim() !== '' &&
      turn.startsWith(piece) &&
      snapBack(generation, generation.length - k) === generation.length - k
    )
      return k;
  }
  return 0;
}
