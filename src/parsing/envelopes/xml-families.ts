import type { EnvelopeFamily } from './envelope.ts';

/**
 * The exact tags of each XML-like call family, in one table: the grammar
 * (xml-grammar.ts, xml-calls.ts, xml-blocks.ts) reads every family from it,
 * so one family's tags never match another's by accident. A tag is written
 * `<` + namespace + local name; a family lists the namespaces it writes, and
 * the same local names under any other `prefix:` are read as that family
 * with a 'namespaced_tags' repair.
 */

export interface XmlFamily {
  family: EnvelopeFamily;
  /** Namespaces the family writes before its call and parameter tags ('' for none); look-alike spellings included. */
  namespaces: readonly string[];
  /** The block around the calls, spelled exactly: namespace + local name of its opener and of its closers. */
  blocks: readonly { open: string; close: readonly string[] }[];
  /** What a block holds: one call element per call, JSON, or GLM's `name` + `<arg_key>` pairs. */
  body: 'calls' | 'json' | 'glm';
  /** The call element: `<function=NAME>` or `<invoke name="NAME">`, closed by `</local>`. */
  call?: { local: 'function' | 'invoke'; name: '=' | 'name' };
  /** How the call element holds its arguments. */
  args?: 'parameters' | 'json';
  /** A reply may end with the block still open (Granite never closes it). */
  openEnded?: boolean;
  /** Tokens that end a reply in this family: left where they are after a call, never a repair. */
  terminators?: readonly string[];
}

/** The DeepSeek V3.2 namespace (fullwidth bars) and the ASCII look-alike detokenisers produce. */
export const DSML_NAMESPACES: readonly string[] = ['｜DSML｜', '|DSML|', '｜DSML|', '|DSML｜'];

/** Never empty: the first family is the fallback when no other fits. */
export const XML_FAMILIES: readonly [XmlFamily, ...XmlFamily[]] = [
  // Hermes, Qwen2.5, Qwen3: <tool_call>{"name": …, "arguments": {…}}</tool_call>
  {
    family: 'tool_call_tag',
    namespaces: [''],
    blocks: [
      { open: 'tool_call', close: ['tool_call'] },
      { open: 'tool_calls', close: ['tool_calls'] },
    ],
    body: 'json',
  },
  // Granite leaves <|tool_call|>[…] open; Phi-4-mini closes it with <|/tool_call|>.
  {
    family: 'granite',
    namespaces: [''],
    blocks: [{ open: '|tool_call|', close: ['|tool_call|', 'tool_call'] }],
    body: 'json',
    openEnded: true,
  },
  // Qwen3-Coder: <tool_call><function=NAME><parameter=KEY>value</parameter></function></tool_call>
  {
    family: 'qwen3_coder',
    namespaces: [''],
    blocks: [{ open: 'tool_call', close: ['tool_call'] }],
    body: 'calls',
    call: { local: 'function', name: '=' },
    args: 'parameters',
  },
  // Llama 3.1 custom tools: <function=NAME>{json}</function><|eom_id|>
  {
    family: 'function_tag',
    namespaces: [''],
    blocks: [],
    body: 'calls',
    call: { local: 'function', name: '=' },
    args: 'json',
    terminators: ['<|eom_id|>', '<|eot_id|>'],
  },
  // GLM-4.5/4.6: <tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>; GLM-4: NAME\n{json}
  { family: 'glm', namespaces: [''], blocks: [{ open: 'tool_call', close: ['tool_call'] }], body: 'glm' },
  // MiniMax-M2: <minimax:tool_call><invoke name="x"><parameter name="k">v</parameter></invoke></minimax:tool_call>
  {
    family: 'minimax',
    namespaces: [''],
    blocks: [{ open: 'minimax:tool_call', close: ['minimax:tool_call'] }],
    body: 'calls',
    call: { local: 'invoke', name: 'name' },
    args: 'parameters',
  },
  // DeepSeek V3.2: <｜DSML｜function_calls><｜DSML｜invoke name="x"><｜DSML｜parameter name="k" string="true">v…
  {
    family: 'deepseek_dsml',
    namespaces: ['', ...DSML_NAMESPACES],
    blocks: DSML_NAMESPACES.map((ns) => ({
      open: `${ns}function_calls`,
      close: DSML_NAMESPACES.map((c) => `${c}function_calls`),
    })),
    body: 'calls',
    call: { local: 'invoke', name: 'name' },
    args: 'parameters',
    terminators: ['<｜end▁of▁sentence｜>'],
  },
  // Anthropic-style, from fine-tunes: <function_calls><invoke name="x"><parameter
  // name="k">v</parameter></invoke></function_calls>
  {
    family: 'xml',
    namespaces: [''],
    blocks: [{ open: 'function_calls', close: ['function_calls'] }],
    body: 'calls',
    call: { local: 'invoke', name: 'name' },
    args: 'parameters',
  },
];

/** GLM's argument tags. */
export const GLM_KEY = 'arg_key';
export const GLM_VALUE = 'arg_value';
/** The parameter element of the call families: `<parameter=KEY>` or `<parameter name="KEY">`. */
export const PARAMETER = 'parameter';

/**
 * A parameter attribute that says how to read its value (DeepSeek V3.2):
 * `string="true"` keeps the text, `string="false"` reads it as JSON.
 */
export const TYPING_ATTRIBUTES: readonly { attribute: string; text: string; json: string }[] = [
  { attribute: 'string', text: 'true', json: 'false' },
];

/**
 * End-of-turn and role tokens that serving stacks leave in the text when they
 * do not stop on them: right after a value or a closer they are noise.
 */
export const LEAKED_SENTINELS: readonly string[] = [
  '<|im_end|>',
  '<|im_start|>',
  '<|endoftext|>',
  '</s>',
  '<|eot_id|>',
  '<|eom_id|>',
  '<｜end▁of▁sentence｜>',
  '<|end▁of▁sentence|>',
  '<|end_of_sentence|>',
  '<|user|>',
  '<|assistant|>',
  '<|observation|>',
  '<|end|>',
  '<|return|>',
  '[e~[',
];

/** Every local name a tag of these families can have (the lexer reads no other). */
export const XML_LOCAL_NAMES: ReadonlySet<string> = new Set([
  ...XML_FAMILIES.flatMap((f) =>
    [...f.blocks.flatMap((b) => [b.open, ...b.close]), ...(f.call === undefined ? [] : [f.call.local])].map(localName),
  ),
  PARAMETER,
  GLM_KEY,
  GLM_VALUE,
]);

/** Block local names (`tool_call`, `function_calls`, `|tool_call|`…). */
export const XML_BLOCK_NAMES: ReadonlySet<string> = new Set(
  XML_FAMILIES.flatMap((f) => f.blocks.flatMap((b) => [b.open, ...b.close])).map(localName),
);

/** The local part of a spelled tag: `minimax:tool_call` → `tool_call`, `｜DSML｜invoke` → `invoke`. */
export function localName(spelled: string): string {
  if (spelled.startsWith('|') && spelled.endsWith('|') && !spelled.slice(1, -1).includes('|')) return spelled;
  const colon = spelled.lastIndexOf(':');
  if (colon >= 0) return spelled.slice(colon + 1);
  const bar = Math.max(spelled.lastIndexOf('｜'), spelled.lastIndexOf('|'));
  return bar >= 0 ? spelled.slice(bar + 1) : spelled;
}

/** The namespace part of a spelled tag ('' for none). */
export function namespaceOf(spelled: string): string {
  return spelled.slice(0, spelled.length - localName(spelled).length);
}
