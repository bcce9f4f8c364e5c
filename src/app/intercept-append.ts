import type { RunStore } from '../core/index.ts';

type Append = RunStore['append'];

/**
 * A store whose `append` is `wrap(the store's append)`; everything else is the store itself. Methods are bound once,
 * not on every call: the store is on every run's path.
 */
export function interceptAppend<S extends RunStore>(store: S, wrap: (append: Append) => Append): S {
  const append = wrap(store.append.bind(store));
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'append') return append;
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      let fn = bound.get(prop);
      if (fn === undefined) {
        fn = value.bind(target);
        bound.set(prop, fn);
      }
      return fn;
    },
  });
}
