import { closestName } from '../core/index.ts';
import type { ParseDiagnostic, RepairKind, Span } from './types.ts';

/**
 * Tool names as models write them, cleaned before they are matched against
 * the declared tools: a name runs into the next token (`get_weather<|channel|>`,
 * `get_weather"}`), carries an API prefix (`functions.`, Harmony's `to=`) or an
 * index suffix (Kimi's `functions.get_weather:0`). A name that still matches no
 * tool is never guessed: the closest declared one is only suggested.
 */

/** Prefixes models put in front of tool names (OpenAI's "functions.", Gemini's "default_api."). */
const NAME_PREFIXES = ['functions.', 'function.', 'tools.', 'tool.', 'default_api.'];
/** What a tool name is made of (MCP and OpenAI names; `:` only for index suffixes, `/` for namespaced servers). */
const NAME_CHAR_RE = /[\w.\-/:]/;
const INDEX_SUFFIX_RE = /:\d+$/;

export interface CleanedName {
  name: string;
  repairs: RepairKind[];
}

/**
 * The declared tool `raw` names, cleaned: `to=` and API prefixes and `:N`
 * index suffixes stripped, the name cut at the first character a tool name
 * cannot hold. Each step counts only when it makes the name a declared tool
 * (or, for a name no tool matches, gives the cleanest form for messages).
 */
export function cleanToolName(raw: string, declared: (name: string) => boolean): CleanedName {
  if (declared(raw)) return { name: raw, repairs: [] };
  const repairs: RepairKind[] = [];
  let name = raw.trim();
  if (declared(name)) return { name, repairs };
  if (name.startsWith('to=')) {
    name = name.slice(3).trimStart();
    repairs.push('stripped_name_prefix');
  }
  let cut = 0;
  while (cut < name.length && NAME_CHAR_RE.test(name.charAt(cut))) cut += 1;
  if (cut > 0 && cut < name.length) {
    name = name.slice(0, cut);
    repairs.push('cut_name_at_invalid_character');
  }
  if (!declared(name) && INDEX_SUFFIX_RE.test(name)) {
    name = name.replace(INDEX_SUFFIX_RE, '');
    repairs.push('stripped_name_index');
  }
  if (!declared(name)) {
    for (const prefix of NAME_PREFIXES) {
      if (name.startsWith(prefix) && declared(name.slice(prefix.length))) {
        name = name.slice(prefix.length);
        if (!repairs.includes('stripped_name_prefix')) repairs.push('stripped_name_prefix');
        break;
      }
    }
  }
  return { name, repairs: declared(name) ? repairs : [] };
}

/** The declared tool closest to `name`, when one is close enough to be a likely typo. */
export function closestTool(name: string, tools: readonly string[]): string | undefined {
  return closestName(name, tools);
}

/** The diagnostic for a call to a tool that is not on offer: the tools there are, and the likely one meant. */
export function unknownToolDiagnostic(name: string, tools: readonly string[], span: Span): ParseDiagnostic {
  const suggestion = closestTool(name, tools);
  const hint = suggestion === undefined ? '' : ` Did you mean "${suggestion}"?`;
  return {
    code: 'unknown_tool',
    message: `Unknown tool "${name}".${hint} Available tools: ${tools.join(', ') || '(none)'}.`,
    span,
    name,
    ...(suggestion === undefined ? {} : { suggestion }),
  };
}
