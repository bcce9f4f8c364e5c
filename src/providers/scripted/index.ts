export { createScriptedAdapter, type ScriptedAdapterOptions } from './scripted-adapter.ts';
export { DEFAULT_MAX_SCRIPT_BYTES, loadScript, type LoadScriptOptions } from './load-script.ts';
export { parseScript, type ScriptedScript, type ScriptedToolCall, type ScriptedTurn } from './script-schema.ts';
