import { TOKEN_FAMILIES } from './envelopes/token-families.ts';

/**
 * The call format a reply's text is written in, by its distinctive markers,
 * for reporting (metrics by family): `deepseek`, `kimi`, `harmony`,
 * `mistral`, `llama`, `gemma`, `minimax`, `granite`, `qwen3_coder`, `glm`,
 * `hermes`, `function_tag`, `xml`, `json`, or `text` when there is no marker.
 * A closed set of names; it does not read calls (extractMessage does).
 */
export function envelopeFamily(text: string): string {
  const t = TOKEN_FAMILIES;
  const has = (...markers: string[]): boolean => markers.some((m) => text.includes(m));
  if (has(t.deepseek.callsBegin, t.deepseek.callBegin)) return 'deepseek';
  if (has(t.kimi.sectionBegin, t.kimi.sectionBeginSingular, t.kimi.callBegin)) return 'kimi';
  if (has(t.harmony.channel) && (has(t.harmony.call) || /to=functions\./.test(text))) return 'harmony';
  if (has(t.mistral.toolCalls)) return 'mistral';
  if (has(t.llama.pythonTag, t.llama.pythonStart)) return 'llama';
  if (new RegExp(`\`\`\`${t.gemma.callFence}`).test(text)) return 'gemma';
  if (has(t.minimaxText.open, '<minimax:tool_call>')) return 'minimax';
  if (has(t.granite.toolCall)) return 'granite';
  if (has('<tool_call>')) {
    if (/<function=/.test(text)) return 'qwen3_coder';
    if (has('<arg_key>')) return 'glm';
    return 'hermes';
  }
  if (/<function=/.test(text)) return 'function_tag';
  if (has('<function_calls>', '<invoke')) return 'xml';
  if (/\{\s*"(?:name|tool|function)"\s*:/.test(text)) return 'json';
  return 'text';
}
