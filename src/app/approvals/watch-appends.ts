import type { RunEvent, RunStore } from '../../core/index.ts';
import { interceptAppend } from '../intercept-append.ts';

/**
 * A store that hands every batch appended through it to `onAppended` once the append resolved (durable): the one
 * place of a process that sees the events of every run, whatever writes them. Everything else is the store itself.
 */
export function watchAppends<S extends RunStore>(
  store: S,
  onAppended: (runId: string, events: readonly RunEvent[]) => void,
): S {
  return interceptAppend(store, (append) => async (...args) => {
    const appended = await append(...args);
    try {
      onAppended(args[0], appended);
    } catch {
      // An observer never fails the append that already happened.
    }
    return appended;
  });
}
