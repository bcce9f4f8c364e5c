import { ToolgateError } from '../core/index.ts';

/**
 * Splits a command line into words the way a POSIX shell would for simple
 * cases: whitespace separates, single quotes are literal, double quotes allow
 * backslash escapes of `"` and `\`, a backslash outside quotes escapes the next
 * character. No expansion of variables or globs: the command is spawned directly.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] ?? '';
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else word += ch;
    } else if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) word += line[++i] ?? '';
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      word += line[++i] ?? '';
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote !== undefined)
    throw new ToolgateError(
      'usage',
      `unbalanced ${quote === '"' ? 'double' : 'single'} quote in command line: ${line}`,
    );
  if (inWord) words.push(word);
  return words;
}
