import { resolve } from 'node:path';
import type { ModelPrice } from '../core/index.ts';
import { matchModelPattern } from '../gate/index.ts';

const SCRIPTED = 'scripted:';

export interface PriceForOptions {
  /** `prices` of the settings: model pattern → price. */
  prices: Readonly<Record<string, ModelPrice>>;
  /** The run's model id. */
  model: string;
  /** Where relative `scripted:` files are (the working directory models are created in). */
  cwd: string;
}

/**
 * The price of a model: the most specific pattern that matches it. A scripted
 * model is a file, named by any path that reaches it — `scripted:./demo.json`
 * in the config file, an absolute path once the file was read from another
 * folder, a path relative to an eval suite — so both sides are compared as
 * the file they name.
 */
export function priceFor(options: PriceForOptions): ModelPrice | undefined {
  const file = (id: string): string =>
    id.startsWith(SCRIPTED) ? SCRIPTED + resolve(options.cwd, id.slice(SCRIPTED.length)) : id;
  const model = file(options.model);
  return Object.entries(options.prices)
    .filter(([pattern]) => matchModelPattern(file(pattern), model))
    .sort(([a], [b]) => b.replaceAll('*', '').length - a.replaceAll('*', '').length)[0]?.[1];
}
