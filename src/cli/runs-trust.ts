import { statSync } from 'node:fs';
import { dirname } from 'node:path';

export interface StoreTrustOptions {
  /** The SQLite file. */
  path: string;
  /** The user the check is for; default this process's (none on Windows: not checked). */
  uid?: number;
}

/**
 * Why the commands a store records must not be started from it, if they must
 * not: `toolgate runs approve` starts the MCP servers a run was created with,
 * so whoever can write the store can choose what runs. Only a store that this
 * user owns, in a folder this user owns, neither writable by anyone else, is
 * trusted with that.
 */
export function storeTrustProblem(options: StoreTrustOptions): string | undefined {
  const uid = options.uid ?? process.getuid?.();
  // Windows has no POSIX owners or modes; its ACLs are not checked here.
  if (uid === undefined) return undefined;
  for (const [what, path] of [
    ['store file', options.path],
    ['folder', dirname(options.path)],
  ] as const) {
    const stat = statSync(path);
    if (stat.uid !== uid) return `the ${what} ${path} belongs to another user (uid ${stat.uid})`;
    if ((stat.mode & 0o022) !== 0) {
      return (
        `the ${what} ${path} is writable by other users (mode ` +
        `${(stat.mode & 0o777).toString(8)}; chmod go-w ${path} if that is not wanted)`
      );
    }
  }
  return undefined;
}
