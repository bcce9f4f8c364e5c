// Counts the timers alive in this process, unref'd ones included (which
// process.getActiveResourcesInfo() leaves out): setTimeout and setInterval,
// global and from node:timers, are wrapped before anything under measure
// loads. (An async hook would also see Node's internal timers, but its
// tracking of every promise would slow the runs being parked severalfold; the
// correctness test, test/e2e/waiting-runs-scale.e2e.test.ts, uses one.)
import { syncBuiltinESMExports } from 'node:module';
import timers from 'node:timers';

const live = new Set<unknown>();

/** Any of Node's timer functions, whatever its overloads. */
type TimerFunction = (...args: never[]) => unknown;

/** Starts counting; timers made before this call are not seen. */
export function startTimerCensus(): void {
  const { setTimeout: timeout, setInterval: interval, clearTimeout: clear, clearInterval: clearEvery } = timers;
  const wrapOnce = (schedule: TimerFunction) =>
    function (this: unknown, callback: (...given: unknown[]) => void, ms?: number, ...args: unknown[]): unknown {
      const handle: unknown = Reflect.apply(schedule, this, [
        (...given: unknown[]) => {
          live.delete(handle);
          callback(...given);
        },
        ms,
        ...args,
      ]);
      live.add(handle);
      return handle;
    };
  const wrapEvery = (schedule: TimerFunction) =>
    function (this: unknown, callback: (...given: unknown[]) => void, ms?: number, ...args: unknown[]): unknown {
      const handle: unknown = Reflect.apply(schedule, this, [callback, ms, ...args]);
      live.add(handle);
      return handle;
    };
  const wrapClear = (cancel: TimerFunction) =>
    function (this: unknown, handle: unknown): void {
      live.delete(handle);
      Reflect.apply(cancel, this, [handle]);
    };
  const replaced = {
    setTimeout: wrapOnce(timeout),
    setInterval: wrapEvery(interval),
    clearTimeout: wrapClear(clear),
    clearInterval: wrapClear(clearEvery),
  };
  Object.assign(globalThis, replaced);
  Object.assign(timers, replaced);
  syncBuiltinESMExports();
}

/** Timers alive now (set and neither fired nor cleared; an interval until it is cleared). */
export function liveTimers(): number {
  return live.size;
}

/** process.getActiveResourcesInfo() counted by kind: the handles and requests that keep the process alive. */
export function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}
