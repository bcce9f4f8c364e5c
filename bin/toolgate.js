#!/usr/bin/env node
// The `toolgate` command. Plain JavaScript, so that an old Node gets a sentence
// instead of a stack trace, and `--version` answers without loading the CLI.
// In the repository it runs the TypeScript sources; installed, the build (dist/).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nodeVersionProblem } from './check-node.js';

const problem = nodeVersionProblem(process.versions.node, process.execPath);
if (problem !== undefined) {
  process.stderr.write(problem);
  process.exit(1);
}

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
  process.exit(0);
}

// Node does not strip types under node_modules: an installed copy always runs the
// build, whose CLI is bundled into a few chunks (start-up time; see scripts/build.ts).
const source = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const useSource = existsSync(source) && !source.split(/[\\/]/).includes('node_modules');
const entry = useSource
  ? new URL('../src/cli/main.ts', import.meta.url)
  : new URL('../dist/bundle/cli/main.js', import.meta.url);
if (!useSource && !existsSync(fileURLToPath(entry))) {
  process.stderr.write(
    'toolgate: the build is missing (dist/). In a clone of the ' +
      'repository run "npm run build", or reinstall the package.\n',
  );
  process.exit(1);
}

const controller = new AbortController();
let interrupted = false;
const stop = (message) => {
  if (interrupted) process.exit(130);
  interrupted = true;
  if (message !== undefined) process.stderr.write(message);
  controller.abort();
};
process.on('SIGINT', () => stop('\ntoolgate: stopping (press Ctrl-C again to force)\n'));
process.on('SIGTERM', () => stop('\ntoolgate: stopping\n'));

// A reader that goes away (`toolgate demo | head -3`) ends the command quietly:
// stop writing, and stop the work as Ctrl-C would (a run is cancelled, not left half-done).
let stdoutClosed = false;
process.stdout.on('error', (error) => {
  if (error.code !== 'EPIPE') throw error;
  stdoutClosed = true;
  if (!interrupted) stop(undefined);
});
process.stderr.on('error', () => undefined);
const stdout = {
  write: (text) => (stdoutClosed ? true : process.stdout.write(text)),
  get isTTY() {
    return process.stdout.isTTY === true;
  },
};

const { main } = await import(entry.href);
const code = await main(args, {
  stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
});
process.exitCode = code;
