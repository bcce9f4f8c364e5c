import { usageError, type CliIO } from './cli-io.ts';

/** `toolgate runs …` (not yet implemented). */
export function runsCommand(_args: readonly string[], _io: CliIO): Promise<number> {
  return Promise.reject(usageError('toolgate runs is not available yet'));
}
