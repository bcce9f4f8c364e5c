import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { main } from './main.ts';
import { COMMANDS } from './commands.ts';
import type { CommandSpec } from './command-spec.ts';
import { PROVIDER_ENV, PROVIDER_TYPES, SCRIPTED_PROVIDER } from '../config/providers.ts';

async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: {},
    cwd: process.cwd(),
  });
  return { code, stdout, stderr };
}

const allSpecs: CommandSpec[] = COMMANDS.flatMap((c) => [c.spec, ...(c.spec.subcommands ?? [])]);

describe('toolgate help', () => {
  for (const spec of allSpecs) {
    test(`"toolgate ${spec.name} --help", "-h" and "toolgate help ${spec.name}" explain every flag`, async () => {
      const words = spec.name.split(' ');
      const long = await cli(...words, '--help');
      assert.equal(long.code, 0, long.stderr);
      assert.equal((await cli(...words, '-h')).stdout, long.stdout);
      assert.equal((await cli('help', ...words)).stdout, long.stdout);
      assert.match(long.stdout, new RegExp(`^toolgate ${spec.name} — `));
      for (const [name, flag] of Object.entries(spec.flags)) {
        const at = long.stdout.indexOf(`--${name}`);
        assert.ok(at >= 0, `--${name} is not in the help of ${spec.name}`);
        assert.ok(flag.description.length > 10, `--${name} of ${spec.name} has no real description`);
        if (flag.type === 'string')
          assert.ok(
            flag.example !== undefined || spec.examples.some((e) => e.includes(`--${name}`)),
            `--${name} of ${spec.name} has no example`,
          );
      }
      assert.ok(spec.examples.length > 0);
      assert.match(long.stdout, /Examples:\n {2}toolgate /);
    });
  }

  test('help for a subcommand comes before the command\'s own: "runs approve --help"', async () => {
    const result = await cli('runs', 'approve', '--help');
    assert.match(result.stdout, /^toolgate runs approve — /);
  });

  test('the overview lists every provider a model id may name, with the variables each reads', async () => {
    const { stdout } = await cli('--help');
    for (const provider of [...PROVIDER_TYPES, SCRIPTED_PROVIDER])
      assert.match(stdout, new RegExp(`^ {2}${provider}:<`, 'm'), `${provider} is not in the overview`);
    assert.match(stdout, /^ {2}<name>:<model> +an endpoint declared under providers:/m);
    for (const variables of Object.values(PROVIDER_ENV)) {
      for (const variable of Object.values(variables))
        if (variable !== undefined) assert.match(stdout, new RegExp(`\\b${variable}\\b`));
    }
  });

  test('the overview lists every command', async () => {
    const result = await cli('help');
    assert.equal(result.code, 0);
    for (const c of COMMANDS) assert.match(result.stdout, new RegExp(`toolgate ${c.spec.name} +\\S`));
    const bare = await cli();
    assert.equal(bare.code, 2, 'no command at all is a usage error');
    assert.equal(bare.stdout, result.stdout);
  });
});

describe('toolgate: did you mean', () => {
  test('an unknown flag names the closest one and the help, exit 2', async () => {
    const result = await cli('run', 'hello', '--modle', 'openai:x');
    assert.equal(result.code, 2);
    assert.match(result.stderr, /unknown flag --modle for toolgate run — did you mean --model\?/);
    assert.match(result.stderr, /toolgate run --help/);
  });

  test('flag values are not taken for flags; "--" ends the flags', async () => {
    const result = await cli('parse', '--tools', 'a', '--', '--not-a-flag');
    assert.equal(result.code, 2);
    assert.doesNotMatch(result.stderr, /unknown flag/);
    assert.match(result.stderr, /does not exist|no such file|ENOENT|cannot read/i);
  });

  test('an unknown short flag, an unknown command and an unknown subcommand', async () => {
    assert.match((await cli('tools', '-x')).stderr, /unknown flag -x for toolgate tools/);
    const command = await cli('srve');
    assert.equal(command.code, 2);
    assert.match(command.stderr, /unknown command "srve" — did you mean "serve"\?/);
    const sub = await cli('help', 'runs', 'aprove');
    assert.equal(sub.code, 2);
    assert.match(sub.stderr, /toolgate runs has no command "aprove" — did you mean "approve"\?/);
  });

  test('nothing close: no guess, the flag is still named', async () => {
    const result = await cli('demo', '--zzzzzz');
    assert.equal(result.code, 2);
    assert.match(result.stderr, /unknown flag --zzzzzz for toolgate demo\n/);
  });
});

test('--version prints the package version', async () => {
  const { readFileSync } = await import('node:fs');
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  assert.equal((await cli('--version')).stdout, `${pkg.version}\n`);
});
