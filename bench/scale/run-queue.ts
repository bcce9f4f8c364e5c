// How long this process waited for a CPU while it was ready to run: the
// kernel's run-queue delay (Linux, /proc/self/schedstat, second field, ns).
// On a shared machine a step can wait for a core while the process is far from
// busy; this tells that wait apart from one inside the process.
import { readFileSync } from 'node:fs';

/** Time spent ready to run but waiting for a CPU since the process started (ms); undefined off Linux. */
export function runQueueWaitMs(): number | undefined {
  try {
    const fields = readFileSync('/proc/self/schedstat', 'utf8').trim().split(/\s+/);
    const waited = Number(fields[1]);
    return Number.isFinite(waited) ? waited / 1e6 : undefined;
  } catch {
    return undefined;
  }
}
