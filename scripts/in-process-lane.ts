// The lane of a test run whose files share one process (see runOnce in run-tests.ts):
//   node scripts/in-process-lane.ts <tally.json> <file> ...
// runs the files one after another in this process, prints their spec report, writes
// the tally (passed, failed, durations) as JSON to <tally.json> and exits, whatever
// handle a test left open.
import { writeFileSync } from 'node:fs';
import { emptyTally, runLane } from './test-lane.ts';

const [tallyFile, ...files] = process.argv.slice(2);
if (tallyFile === undefined) {
  console.error('usage: node scripts/in-process-lane.ts <tally.json> <file> ...');
  process.exit(2);
}
const tally = emptyTally();
await runLane(files, { isolation: 'none', concurrency: 1 }, tally);
writeFileSync(tallyFile, JSON.stringify(tally));
process.stdout.write('', () => process.exit(0));
