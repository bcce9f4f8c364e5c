import safeRegex from 'safe-regex2';
import { isJsonObject, type JsonValue } from '../core/index.ts';

/** Keywords whose values are data, not schemas: a `pattern` key inside them is not a keyword. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example']);

/** A regular expression of a schema that could take exponential time to match, and where it is. */
export interface SlowPattern {
  /** JSON Pointer of the keyword (`/properties/code/pattern`, `/patternProperties/<key>`). */
  at: string;
  pattern: string;
}

/**
 * The `pattern` and `patternProperties` regular expressions of a schema that may backtrack catastrophically (a
 * repeated group with a repetition inside, like `(a+)+`), by safe-regex2's star-height rule. JavaScript cannot stop
 * a regular expression once it runs: one such pattern, matched against a value a model was talked into writing,
 * would hold the whole server. Used for schemas that come from API callers (client tools).
 */
export function slowPatterns(schema: JsonValue, at = ''): SlowPattern[] {
  if (Array.isArray(schema)) return schema.flatMap((item, i) => slowPatterns(item, `${at}/${i}`));
  if (!isJsonObject(schema)) return [];
  const found: SlowPattern[] = [];
  for (const [key, value] of Object.entries(schema)) {
    const here = `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (DATA_KEYWORDS.has(key)) continue;
    if (key === 'pattern' && typeof value === 'string') {
      if (!safeRegex(value)) found.push({ at: here, pattern: value });
      continue;
    }
    if (key === 'patternProperties' && isJsonObject(value)) {
      for (const name of Object.keys(value)) {
        if (!safeRegex(name)) found.push({ at: `${here}/${name}`, pattern: name });
      }
    }
    found.push(...slowPatterns(value, here));
  }
  return found;
}
