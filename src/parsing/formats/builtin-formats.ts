import { TOKEN_FAMILIES } from '../envelopes/token-families.ts';
import type { CallFormat } from './call-format.ts';

/**
 * The built-in lexicon as data: every family of docs/parsing.md's table in
 * the CallFormat shape. The specialised readers in envelopes/ stay the
 * readers of these families (they know their quirks: broken closers, look-
 * alike tokens, Harmony's channels); this table describes them in the one
 * shape that configured and template-derived formats share, and a test reads
 * each one back through the generic reader. Left out, because they are JSON
 * shapes rather than markup (call-shapes.ts reads them): JSON-RPC, OpenAI and
 * Gemini JSON, agent shapes, prose JSON; and MiniMax's plain-text fallback
 * (`{tool => "x", args => {--k "v"}}`), which no shared grammar writes.
 */

const D = TOKEN_FAMILIES.deepseek;
const K = TOKEN_FAMILIES.kimi;
const H = TOKEN_FAMILIES.harmony;
const M = TOKEN_FAMILIES.mistral;
const L = TOKEN_FAMILIES.llama;

const NAME_ARGUMENTS = { slot: 'field', nameKey: 'name', argumentsKey: 'arguments' } as const;
const JSON_ARGS = { grammar: 'json' } as const;

export const BUILTIN_FORMATS: readonly CallFormat[] = [
  {
    id: 'hermes',
    origin: 'builtin',
    description: 'Hermes, Qwen2.5, Qwen3',
    call: { begin: '<tool_call>', end: '</tool_call>' },
    name: NAME_ARGUMENTS,
    arguments: JSON_ARGS,
  },
  {
    id: 'granite',
    origin: 'builtin',
    description: 'Granite, Phi-4-mini',
    call: { begin: '<|tool_call|>' },
    name: NAME_ARGUMENTS,
    arguments: JSON_ARGS,
    list: true,
  },
  {
    id: 'qwen3_coder',
    origin: 'builtin',
    description: 'Qwen3-Coder, Seed-OSS-like function tags',
    call: { begin: '<tool_call>', end: '</tool_call>' },
    name: { slot: 'marker', before: '<function=', after: '>' },
    arguments: { grammar: 'xml', parameters: { form: 'equals', tag: 'parameter' } },
    argumentsEnd: '</function>',
  },
  {
    id: 'function_tag',
    origin: 'builtin',
    description: 'Llama 3.1 custom tools',
    call: { begin: '<function=', end: '</function>' },
    name: { slot: 'marker', after: '>' },
    arguments: JSON_ARGS,
  },
  {
    id: 'glm',
    origin: 'builtin',
    description: 'GLM-4.5, GLM-4.6',
    call: { begin: '<tool_call>', end: '</tool_call>' },
    name: { slot: 'marker' },
    arguments: { grammar: 'xml', parameters: { form: 'child', keyTag: 'arg_key', valueTag: 'arg_value' } },
  },
  {
    id: 'glm4',
    origin: 'builtin',
    description: 'GLM-4',
    call: { begin: '<tool_call>', end: '</tool_call>' },
    name: { slot: 'marker' },
    arguments: JSON_ARGS,
  },
  {
    id: 'minimax',
    origin: 'builtin',
    description: 'MiniMax-M2',
    section: { begin: '<minimax:tool_call>', end: '</minimax:tool_call>' },
    call: { begin: '<invoke name="', end: '</invoke>' },
    name: { slot: 'marker', after: '">' },
    arguments: { grammar: 'xml', parameters: { form: 'attribute', tag: 'parameter', attribute: 'name' } },
  },
  {
    id: 'deepseek',
    origin: 'builtin',
    description: 'DeepSeek V3, R1',
    section: { begin: D.callsBegin, end: D.callsEnd },
    call: { begin: D.callBegin, end: D.callEnd },
    name: { slot: 'marker', before: `function${D.sep}`, after: '```json' },
    arguments: JSON_ARGS,
    argumentsEnd: '```',
  },
  {
    id: 'deepseek_v3_1',
    origin: 'builtin',
    description: 'DeepSeek V3.1',
    section: { begin: D.callsBegin, end: D.callsEnd },
    call: { begin: D.callBegin, end: D.callEnd },
    name: { slot: 'marker', after: D.sep },
    arguments: JSON_ARGS,
  },
  {
    id: 'deepseek_dsml',
    origin: 'builtin',
    description: 'DeepSeek V3.2 (DSML)',
    section: { begin: '<｜DSML｜function_calls>', end: '</｜DSML｜function_calls>' },
    call: { begin: '<｜DSML｜invoke name="', end: '</｜DSML｜invoke>' },
    name: { slot: 'marker', after: '">' },
    arguments: { grammar: 'xml', parameters: { form: 'attribute', tag: '｜DSML｜parameter', attribute: 'name' } },
  },
  {
    id: 'xml',
    origin: 'builtin',
    description: 'Anthropic-style tags',
    section: { begin: '<function_calls>', end: '</function_calls>' },
    call: { begin: '<invoke name="', end: '</invoke>' },
    name: { slot: 'marker', after: '">' },
    arguments: { grammar: 'xml', parameters: { form: 'attribute', tag: 'parameter', attribute: 'name' } },
  },
  {
    id: 'kimi',
    origin: 'builtin',
    description: 'Kimi K2 (names as functions.NAME:INDEX)',
    section: { begin: K.sectionBegin, end: K.sectionEnd },
    call: { begin: K.callBegin, end: K.callEnd },
    name: { slot: 'marker', after: K.argumentBegin },
    arguments: JSON_ARGS,
  },
  {
    id: 'harmony',
    origin: 'builtin',
    description: 'GPT-OSS (Harmony); the reader also takes `to=` before the channel and `<|constrain|>`',
    call: { begin: `${H.start}assistant${H.channel}commentary to=`, end: H.call },
    name: { slot: 'marker', after: H.message },
    arguments: JSON_ARGS,
  },
  {
    id: 'mistral_list',
    origin: 'builtin',
    description: 'Mistral (old tokenizer)',
    call: { begin: M.toolCalls },
    name: NAME_ARGUMENTS,
    arguments: JSON_ARGS,
    list: true,
  },
  {
    id: 'mistral',
    origin: 'builtin',
    description: 'Mistral (new tokenizer)',
    call: { begin: M.toolCalls },
    name: { slot: 'marker', after: M.args },
    arguments: JSON_ARGS,
  },
  {
    id: 'llama_python_tag',
    origin: 'builtin',
    description: 'Llama 3.1 JSON calls',
    call: { begin: L.pythonTag, end: L.endOfMessage },
    name: { slot: 'field', nameKey: 'name', argumentsKey: 'parameters' },
    arguments: JSON_ARGS,
  },
  {
    id: 'llama4',
    origin: 'builtin',
    description: 'Llama 4 pythonic',
    call: { begin: L.pythonStart, end: L.pythonEnd },
    name: { slot: 'call' },
    arguments: { grammar: 'key_value' },
    list: true,
  },
  {
    id: 'pythonic',
    origin: 'builtin',
    description: 'Pythonic list (Llama 3.2/4, fine-tunes); read only as the whole reply',
    section: { begin: '[', end: ']' },
    call: { begin: '' },
    separator: ',',
    name: { slot: 'call' },
    arguments: { grammar: 'key_value' },
  },
  {
    id: 'gemma',
    origin: 'builtin',
    description: 'Gemma tool_code fences',
    call: { begin: '```tool_code', end: '```' },
    name: { slot: 'call' },
    arguments: { grammar: 'key_value' },
  },
  {
    id: 'tool_line',
    origin: 'builtin',
    description: 'Agent `tool:` lines',
    call: { begin: 'tool:' },
    name: { slot: 'marker' },
    arguments: JSON_ARGS,
  },
  {
    id: 'json_fence',
    origin: 'builtin',
    description: 'Fenced JSON',
    call: { begin: '```json', end: '```' },
    name: NAME_ARGUMENTS,
    arguments: JSON_ARGS,
  },
];
