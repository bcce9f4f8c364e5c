export { createScriptedAdapter, type ScriptedAdapterOptions } from './scripted-adapter.ts';
export { loadScript } from './load-script.ts';
export { parseScript, type ScriptedScript, type ScriptedToolCall, type ScriptedTurn } from './script-schema.ts';
