import { isAbsolute, resolve } from 'node:path';
import { ToolgateError, type RunStore } from '../core/index.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { openSqliteRunStore } from '../store/sqlite/open-sqlite-run-store.ts';

export const DEFAULT_STORE = 'sqlite:./data/toolgate.db';

const POSTGRES_SPEC = /^postgres(?:ql)?:\/\//i;

/** Whether a store spec names a PostgreSQL database. */
export function isPostgresSpec(spec: string): boolean {
  return POSTGRES_SPEC.test(spec);
}

/** The spec as it may be printed or logged: a URL's password is replaced by `***`. */
export function describeStore(spec: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(spec)) return spec;
  try {
    const url = new URL(spec);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return `${spec.slice(0, spec.indexOf('://'))}://… (not a valid URL)`;
  }
}

/** `memory:`, `sqlite:<path>` (relative to cwd) or `postgres://…` → a RunStore. */
export async function openStore(
  spec: string,
  options: { cwd?: string; synchronous?: 'FULL' | 'NORMAL'; busyTimeoutMs?: number; poolSize?: number } = {},
): Promise<RunStore> {
  if (spec === 'memory:' || spec === 'memory') return new MemoryRunStore();
  if (isPostgresSpec(spec)) {
    // Loaded only for PostgreSQL: `pg` stays out of every other start-up.
    const { openPostgresRunStore } = await import('../store/postgres/open-postgres-run-store.ts');
    return openPostgresRunStore({
      url: spec,
      ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
    });
  }
  if (spec.startsWith('sqlite:')) {
    const raw = spec.slice('sqlite:'.length);
    if (raw === '')
      throw new ToolgateError('usage', 'the sqlite store needs a file: --store sqlite:./data/toolgate.db');
    const path = raw === ':memory:' || isAbsolute(raw) ? raw : resolve(options.cwd ?? process.cwd(), raw);
    return openSqliteRunStore({
      path,
      ...(options.synchronous === undefined ? {} : { synchronous: options.synchronous }),
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
    });
  }
  throw new ToolgateError(
    'usage',
    `unknown store "${describeStore(spec)}": use memory:, sqlite:<file> (e.g. ` +
      `sqlite:./data/toolgate.db) or postgres://user:password@host:5432/database`,
  );
}
