// `toolgate/store/sqlite`: the default run store, one SQLite file (node:sqlite).
export { openSqliteRunStore, type OpenSqliteRunStoreOptions } from '../store/sqlite/open-sqlite-run-store.ts';
export { SqliteRunStore } from '../store/sqlite/sqlite-run-store.ts';
