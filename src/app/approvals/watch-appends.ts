import type { RunEvent, RunStore } from '../../core/index.ts';

/**
 * A store that hands every batch appended through it to `onAppended` once the append resolved (durable): the one
 * place of a process that sees the events of every run, whatever writes them. Everything else is the store itself.
 */
export function watchAppends<S extends RunStore>(
  store: S,
  onAppended: (runId: string, events: readonly RunEvent[]) => void,
): S {
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      let fn = bound.get(prop);
      if (fn === undefined) {
        const method = value;
        fn =
          prop === 'append'
            ? async (...args: unknown[]) => {
                const appended: unknown = await method.apply(target, args);
                const runId = args[0];
                if (typeof runId === 'string' && Array.isArray(appended)) {
                  try {
                    onAppended(runId, appended);
                  } catch {
                    // An observer never fails the append that already happened.
                  }
                }
                return appended;
              }
            : method.bind(target);
        bound.set(prop, fn);
      }
      return fn;
    },
  });
}
