// The lane of a test run whose files share one process (see runOnce in run-tests.ts):
//   node scripts/in-process-lane.ts <tally.json> <file> ...
// runs the files one after another in this process, prints their spec report, writes
// the tally (passed, failed, durations) as JSON to <tally.json> and exits, whatever
// handle a test left open.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { emptyTally, runLane } from './test-lane.ts';

const [tallyFile, ...files] = process.argv.slice(2);
if (tallyFile === undefined) {
  console.error('usage: node scripts/in-process-lane.ts <tally.json> <file> ...');
  process.exit(2);
}
const tally = emptyTally();
await runLane(files, { isolation: 'none', concurrency: 1 }, tally);
writeFileSync(tallyFile, JSON.stringify(tally));
// The lane exits without waiting for the files' top-level `after` hooks (see runLane): a
// process a test started and meant to stop there would outlive the run. Whatever this
// process started and is still running goes with it.
killDescendants(process.pid);
process.stdout.write('', () => process.exit(0));

/** Every process below `pid` (Linux: read from /proc; elsewhere nothing), the deepest first, SIGKILLed. */
function killDescendants(pid: number): void {
  if (process.platform !== 'linux') return;
  const parents = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command may hold spaces and parentheses: the fields after its closing ")" are fixed.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(name)]);
    } catch {
      // The process ended while it was being read.
    }
  }
  const below = (of: number): number[] => (parents.get(of) ?? []).flatMap((child) => [...below(child), child]);
  for (const child of below(pid)) {
    try {
      process.kill(child, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
