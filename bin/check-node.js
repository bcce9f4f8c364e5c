// Plain JavaScript on purpose: it must run on any Node, however old, far
// enough to say what toolgate needs instead of failing with a stack trace.
// `node bin/check-node.js` exits 1 with that sentence when this Node is too old.
import { fileURLToPath } from 'node:url';

export const MIN_NODE = [22, 18];

/** A sentence saying what to do when `version` is older than MIN_NODE; undefined when it is new enough. */
export function nodeVersionProblem(version, execPath) {
  const [major = 0, minor = 0] = String(version).split('.').map(Number);
  if (major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1])) return undefined;
  return (
    `toolgate needs Node.js ${MIN_NODE.join('.')} or newer (Node 24 LTS recommended), but this is Node ${version}` +
    `${execPath ? ` (${execPath})` : ''}.\n` +
    ('  Install Node 24: from nodejs.org, or with a version manager ' +
      '(nvm install 24 / fnm install 24 / volta install node@24).\n') +
    ('  In a clone of the toolgate repository, this puts Node ' +
      '24 first on PATH for your shell (it downloads it once):\n') +
    '    export PATH="$(bash scripts/ensure-node.sh):$PATH"\n'
  );
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const problem = nodeVersionProblem(process.versions.node, process.execPath);
  if (problem !== undefined) {
    process.stderr.write(problem);
    process.exit(1);
  }
}
