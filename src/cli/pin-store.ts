import { resolve } from 'node:path';
import { DEFAULT_STORE } from '../app/open-store.ts';

/** The store tool pins live in, as `toolgate tools --diff` and `--accept` find it. */
export interface PinStore {
  /** For openStore: `memory:`, `sqlite:<absolute path>` or a PostgreSQL URL (another spec is refused by openStore). */
  spec: string;
  /** The SQLite file, when there is one. */
  path?: string;
  /** Nothing named a store: DEFAULT_STORE, in the working directory. */
  isDefault: boolean;
}

export interface PinStoreOptions {
  /** `--store`. */
  flag: string | undefined;
  /** `server.store` of the config file (a relative SQLite path is already made absolute against the file's folder). */
  configured: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

/**
 * The store `toolgate serve` and `toolgate gateway` open (src/cli/serving.ts),
 * so an operator's `--diff` reads the pins the gateway wrote: `--store`, else
 * the config's `server.store`, else DATABASE_URL, else DEFAULT_STORE
 * (`sqlite:./data/toolgate.db`) relative to the working directory.
 */
export function pinStoreFor(options: PinStoreOptions): PinStore {
  const named = namedStore(options);
  const spec = named ?? DEFAULT_STORE;
  if (spec === 'memory' || spec === 'memory:' || spec === 'sqlite::memory:')
    return { spec: 'memory:', isDefault: false };
  if (spec.startsWith('sqlite:') && spec.length > 'sqlite:'.length) {
    const path = resolve(options.cwd, spec.slice('sqlite:'.length));
    return { spec: `sqlite:${path}`, path, isDefault: named === undefined };
  }
  return { spec, isDefault: false };
}

/**
 * The store a command was told to use: `--store`, else the config's `server.store`, else DATABASE_URL (the usual
 * variable of PostgreSQL hosting).
 */
export function namedStore(options: Pick<PinStoreOptions, 'flag' | 'configured' | 'env'>): string | undefined {
  const databaseUrl = options.env['DATABASE_URL'];
  return (
    options.flag ?? options.configured ?? (databaseUrl === undefined || databaseUrl === '' ? undefined : databaseUrl)
  );
}
