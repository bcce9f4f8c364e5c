// `toolgate/store/postgres`: the run store for several instances (docs/deploy.md).
export { openPostgresRunStore, type OpenPostgresRunStoreOptions } from '../store/postgres/open-postgres-run-store.ts';
export { PostgresRunStore } from '../store/postgres/postgres-run-store.ts';
