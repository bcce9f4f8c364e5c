// A terminal for CLI commands run in-process: stdin is a TTY, and each
// question the command asks on stderr is answered with the next answer, like a
// person at the keyboard.
import { PassThrough } from 'node:stream';
import type { CliIO } from '../../src/cli/cli-io.ts';

/** The prompts of src/cli/ask-approval.ts. */
const QUESTION = new RegExp(
  String.raw`approve\? \[y\]es|execute again\? \[y\]es|reason \(told to` +
    String.raw` the model\)|new arguments \(JSON object\)|what did you see`,
);

export function fakeTerminal(answers: string[]): { io: CliIO; stderr: () => string; stdout: () => string } {
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  const queue = [...answers];
  let err = '';
  let out = '';
  const io: CliIO = {
    stdout: { write: (t: string) => (out += t) },
    stderr: {
      write: (t: string) => {
        err += t;
        if (QUESTION.test(t)) {
          const next = queue.shift();
          if (next !== undefined) setImmediate(() => stdin.write(`${next}\n`));
        }
        return true;
      },
    },
    stdin,
    env: { NO_COLOR: '1' },
    cwd: process.cwd(),
  };
  return { io, stderr: () => err, stdout: () => out };
}
