import { describeError } from '../../core/describe-error.ts';
import { ToolgateError } from '../../core/errors.ts';

/** How many tokens a text is, by a BPE tokenizer. */
export type CountTokens = (text: string) => number;

/**
 * The encoding estimates are counted in. cl100k_base is the public BPE closest to the
 * models that leave usage out (local servers: Llama 3's tokenizer extends it, Qwen's is of
 * the same kind), and of the bundled encodings it is half the load time and memory of
 * o200k_base (docs/decisions/0021-estimated-token-usage.md).
 */
export const ESTIMATE_ENCODING = 'cl100k_base';

let loading: Promise<CountTokens> | undefined;

/**
 * The tokenizer, loaded on the first call only: it takes a few hundred ms and some 40 MB,
 * which a process whose models report usage never pays. Text that looks like a special
 * token (`<|endoftext|>`, written by a model or a tool) is counted as text, never refused.
 */
export function loadTokenCounter(): Promise<CountTokens> {
  loading ??= import('gpt-tokenizer/encoding/cl100k_base').then(
    (tokenizer): CountTokens => {
      const options = { disallowedSpecial: new Set<string>() };
      return (text) => (text === '' ? 0 : tokenizer.countTokens(text, options));
    },
    (error: unknown) => {
      loading = undefined;
      throw new ToolgateError(
        'internal',
        `the tokenizer that estimates token usage (gpt-tokenizer) could not be loaded: ` +
          `${describeError(error)}. Reinstall toolgate's dependencies (npm install)`,
        { cause: error },
      );
    },
  );
  return loading;
}
