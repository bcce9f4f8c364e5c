// The interactive approval prompt, driven through a fake terminal.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Toolgate } from '../app/toolgate.ts';
import { resolveSettings } from '../config/resolve-settings.ts';
import { createScriptedAdapter } from '../providers/scripted/scripted-adapter.ts';
import type { CliIO } from './cli-io.ts';
import { runAndPrint } from './run-command.ts';

const SERVER = fileURLToPath(new URL('../../examples/power-exchange/server.ts', import.meta.url));
const ORDER = '{"userId":"bob","side":"BUY","price":50,"qty":1,"symbol":"DE-BASE-D+1"}';

function terminal(answers: string[]): { io: CliIO; stderr: () => string; stdout: () => string } {
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  let err = '';
  let out = '';
  const io: CliIO = {
    stdout: { write: (t: string) => (out += t) },
    stderr: {
      write: (t: string) => {
        err += t;
        // Answer each question as it is asked, like a person at the terminal.
        if (/approve\? \[y\]es|reason \(told to the model\)|new arguments \(JSON object\)/.test(t)) {
          const next = answers.shift();
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

function toolgateWith(turns: { text?: string; toolCalls?: { id: string; name: string; arguments: string }[] }[]): Toolgate {
  const settings = resolveSettings({ servers: { 'power-exchange': { command: process.execPath, args: [SERVER] } } }, {}, {});
  return new Toolgate({ settings, model: createScriptedAdapter({ script: { turns }, id: 'scripted:test' }) });
}

describe('toolgate run: interactive approval on a terminal', () => {
  const open: Toolgate[] = [];
  after(() => Promise.all(open.map((t) => t.close())));

  it('reject with a reason: the model is told, nothing is executed', async () => {
    const t = toolgateWith([{ toolCalls: [{ id: 'o1', name: 'placeOrder', arguments: ORDER }] }, { text: 'Understood, no order.' }]);
    open.push(t);
    const term = terminal(['n', 'too expensive']);
    const code = await runAndPrint(t, { input: 'buy', json: false }, term.io);
    assert.equal(code, 0, term.stderr());
    assert.match(term.stderr(), /\? placeOrder \[write\]/);
    assert.match(term.stderr(), /← placeOrder rejected: .*too expensive/);
    assert.match(term.stdout(), /Understood, no order\./);
  });

  it('edit: invalid JSON is asked again, then the edited arguments run', async () => {
    const t = toolgateWith([{ toolCalls: [{ id: 'o2', name: 'placeOrder', arguments: ORDER }] }, { text: 'Placed the edited order.' }]);
    open.push(t);
    const edited = '{"userId":"bob","side":"BUY","price":40,"qty":2,"symbol":"DE-BASE-D+1"}';
    const term = terminal(['e', '{not json', 'e', edited]);
    const code = await runAndPrint(t, { input: 'buy', json: false }, term.io);
    assert.equal(code, 0, term.stderr());
    assert.match(term.stderr(), /not valid JSON/);
    assert.match(term.stderr(), /→ placeOrder\(\{"userId":"bob","side":"BUY","price":40,"qty":2/);
    assert.match(term.stderr(), /← placeOrder ok/);
  });
});
