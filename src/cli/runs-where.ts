import { resolve } from 'node:path';
import { defaultRunsDb } from '../app/data-dir.ts';
import { optionalString, usageError } from './cli-io.ts';

/** A run store on this machine. */
export interface LocalWhere {
  kind: 'local';
  /** For openStore: `memory:` or `sqlite:<absolute path>`. */
  spec: string;
  /** The SQLite file, when there is one. */
  path?: string;
  /** The store in the user's data directory, chosen when no --store was given. */
  isDefault: boolean;
}

/** A toolgate server's runs API. */
export interface RemoteWhere {
  kind: 'remote';
  /** Without a trailing slash. */
  url: string;
  apiKey?: string;
  /** Given with --url (not TOOLGATE_URL): the commands we suggest must repeat it. */
  urlFromFlag: boolean;
}

export type Where = LocalWhere | RemoteWhere;

export interface WhereOptions {
  values: Record<string, unknown>;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

/** `--store` of `toolgate run` (or of `toolgate runs`), default the SQLite file in the data directory. */
export function localStoreFor(options: {
  flag: string | undefined;
  env: WhereOptions['env'];
  cwd: string;
}): LocalWhere {
  const { flag } = options;
  if (flag === undefined) {
    const path = defaultRunsDb({ env: options.env, cwd: options.cwd });
    return { kind: 'local', spec: `sqlite:${path}`, path, isDefault: true };
  }
  if (flag === 'memory:' || flag === 'memory') return { kind: 'local', spec: 'memory:', isDefault: false };
  if (flag.startsWith('sqlite:')) {
    const raw = flag.slice('sqlite:'.length);
    if (raw === '') throw usageError('--store sqlite: needs a file, e.g. --store sqlite:./runs.db');
    // SQLite's own in-memory name: nothing outlives the process, as with memory:.
    if (raw === ':memory:') return { kind: 'local', spec: 'memory:', isDefault: false };
    const path = resolve(options.cwd, raw);
    return { kind: 'local', spec: `sqlite:${path}`, path, isDefault: false };
  }
  throw usageError(`--store ${flag}: use sqlite:<file> or memory: (e.g. --store sqlite:./runs.db)`);
}

/** Where `toolgate runs` looks: --url / --store, else TOOLGATE_URL, else the default local store. */
export function whereFor(options: WhereOptions): Where {
  const store = optionalString(options.values, 'store');
  const url = optionalString(options.values, 'url');
  if (store !== undefined && url !== undefined) throw usageError('--store and --url name two places; give one of them');
  const envUrl = nonEmpty(options.env['TOOLGATE_URL']);
  if (url !== undefined || (store === undefined && envUrl !== undefined)) {
    const apiKey = optionalString(options.values, 'api-key') ?? nonEmpty(options.env['TOOLGATE_API_KEY']);
    return {
      kind: 'remote',
      url: serverUrl(url ?? envUrl ?? '', url !== undefined ? '--url' : 'TOOLGATE_URL'),
      ...(apiKey === undefined ? {} : { apiKey }),
      urlFromFlag: url !== undefined,
    };
  }
  return localStoreFor({ flag: store, env: options.env, cwd: options.cwd });
}

/**
 * The flags a later `toolgate runs …` command needs to reach the same run
 * (`''` for the defaults), or undefined when the run was not recorded.
 */
export function resumeFlags(where: Where): string | undefined {
  if (where.kind === 'remote') return where.urlFromFlag ? ` --url ${shellQuote(where.url)}` : '';
  if (where.path === undefined) return undefined;
  return where.isDefault ? '' : ` --store ${shellQuote(`sqlite:${where.path}`)}`;
}

/** Quotes a word for a POSIX shell when it needs it. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

function serverUrl(value: string, source: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usageError(`${source} ${value}: not a URL; give the server's address, e.g. http://127.0.0.1:8787`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usageError(`${source} ${value}: must be an http:// or https:// address`);
  return url.toString().replace(/\/+$/, '');
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
