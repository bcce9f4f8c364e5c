import { didYouMean } from '../core/index.ts';

/**
 * The text after `<path>.<key>: ` for a key the schema does not know: the
 * closest known key when one is a likely typo, else every known key, so the
 * reader can fix the file without opening the docs.
 */
export function unknownKeyMessage(key: string, known: readonly string[]): string {
  if (known.length === 0) return 'unknown key (see docs/configuration.md)';
  const hint = didYouMean(key, known);
  return hint === '' ? `unknown key; known keys: ${known.join(', ')}` : `unknown key${hint}`;
}
