import type { Histogram } from 'prom-client';
import type { RunStore } from '../core/index.ts';
import { interceptAppend } from './intercept-append.ts';

/** A store whose appends are timed into `histogram`; everything else is the store itself. */
export function timeAppends<S extends RunStore>(store: S, histogram: Histogram): S {
  return interceptAppend(store, (append) => async (...args) => {
    const stop = histogram.startTimer();
    try {
      return await append(...args);
    } finally {
      stop();
    }
  });
}
