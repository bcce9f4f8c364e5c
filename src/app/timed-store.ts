import type { Histogram } from 'prom-client';
import type { RunStore } from '../core/index.ts';

/** A store whose appends are timed into `histogram`; everything else is the store itself. */
export function timeAppends<S extends RunStore>(store: S, histogram: Histogram): S {
  // Bound once per method, not on every call: the store is on every run's path.
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
                const stop = histogram.startTimer();
                try {
                  return await method.apply(target, args);
                } finally {
                  stop();
                }
              }
            : method.bind(target);
        bound.set(prop, fn);
      }
      return fn;
    },
  });
}
