#!/usr/bin/env node
// The `toolgate` command. Node 22.18+ runs the TypeScript sources directly.
import { main } from '../src/cli/main.ts';

const controller = new AbortController();
let interrupted = false;
const onSignal = () => {
  if (interrupted) process.exit(130);
  interrupted = true;
  process.stderr.write('\ntoolgate: stopping (press Ctrl-C again to force)\n');
  controller.abort();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

const code = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
});
process.exitCode = code;
