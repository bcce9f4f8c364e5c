// The interactive approval prompt, driven through a fake terminal.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Toolgate } from '../app/toolgate.ts';
import { resolveSettings } from '../config/resolve-settings.ts';
import { createScriptedAdapter } from '../providers/scripted/scripted-adapter.ts';
import type { CliIO } from './cli-io.ts';
import { fakeTerminal } from '../../test/support/fake-terminal.ts';
import { runAndPrint } from './run-command.ts';

const SERVER = fileURLToPath(new URL('../../examples/power-exchange/server.ts', import.meta.url));
const ORDER = '{"userId":"bob","side":"BUY","price":50,"qty":1,"symbol":"DE-BASE-D+1"}';

function toolgateWith(
  turns: { text?: string; toolCalls?: { id: string; name: string; arguments: string }[] }[],
  slowOrders = false,
): Toolgate {
  // slowOrders: the venue takes 1.5 s per order and the client gives up after 300 ms (the order still happens).
  const settings = resolveSettings(
    {
      servers: {
        'power-exchange': {
          command: process.execPath,
          args: [SERVER, ...(slowOrders ? ['--delay', 'placeOrder=1500'] : [])],
        },
      },
      ...(slowOrders ? { tools: { 'power-exchange/placeOrder': { timeoutMs: 300, approval: 'never' as const } } } : {}),
    },
    {},
    {},
  );
  return new Toolgate({ settings, model: createScriptedAdapter({ script: { turns }, id: 'scripted:test' }) });
}

describe('toolgate run: interactive approval on a terminal', () => {
  const open: Toolgate[] = [];
  after(() => Promise.all(open.map((t) => t.close())));

  it('reject with a reason: the model is told, nothing is executed', async () => {
    const t = toolgateWith([
      { toolCalls: [{ id: 'o1', name: 'placeOrder', arguments: ORDER }] },
      { text: 'Understood, no order.' },
    ]);
    open.push(t);
    const term = fakeTerminal(['n', 'too expensive']);
    const code = await runAndPrint(t, { input: 'buy', json: false }, term.io);
    assert.equal(code, 0, term.stderr());
    assert.match(term.stderr(), /\? placeOrder \[write\]/);
    assert.match(term.stderr(), /← placeOrder rejected: .*too expensive/);
    assert.match(term.stdout(), /Understood, no order\./);
  });

  it('edit: invalid JSON is asked again, then the edited arguments run', async () => {
    const t = toolgateWith([
      { toolCalls: [{ id: 'o2', name: 'placeOrder', arguments: ORDER }] },
      { text: 'Placed the edited order.' },
    ]);
    open.push(t);
    const edited = '{"userId":"bob","side":"BUY","price":40,"qty":2,"symbol":"DE-BASE-D+1"}';
    const term = fakeTerminal(['e', '{not json', 'e', edited]);
    const code = await runAndPrint(t, { input: 'buy', json: false }, term.io);
    assert.equal(code, 0, term.stderr());
    assert.match(term.stderr(), /not valid JSON/);
    assert.match(term.stderr(), /→ placeOrder\(\{"userId":"bob","side":"BUY","price":40,"qty":2/);
    assert.match(term.stderr(), /← placeOrder ok/);
  });

  it(
    'an order that timed out is never re-executed by --yes: ' +
      'without a terminal it stops with exit 3 and says what to do',
    async () => {
      const t = toolgateWith(
        [
          { toolCalls: [{ id: 'o3', name: 'placeOrder', arguments: ORDER }] },
          { toolCalls: [{ id: 'o4', name: 'placeOrder', arguments: ORDER }] },
        ],
        true,
      );
      open.push(t);
      const term = fakeTerminal([]);
      const io: CliIO = { ...term.io };
      delete (io as { stdin?: unknown }).stdin;
      const code = await runAndPrint(t, { input: 'buy', json: false, yes: true, resume: '' }, io);
      assert.equal(code, 3, term.stderr());
      assert.match(
        term.stderr(),
        /placeOrder was sent but its outcome is unknown \(.*300 ms.*\); it may have happened/,
      );
      assert.match(term.stderr(), /toolgate runs mark-done run_\w+ --result "what you saw"/);
      assert.match(term.stderr(), /toolgate runs approve run_\w+ +# it did not happen: send it again/);
    },
  );

  it('on a terminal, an order whose outcome is unknown can be marked done: recorded, not executed again', async () => {
    const t = toolgateWith(
      [{ toolCalls: [{ id: 'o5', name: 'placeOrder', arguments: ORDER }] }, { text: 'Noted: the order went through.' }],
      true,
    );
    open.push(t);
    const term = fakeTerminal(['d', 'order is on the book']);
    const code = await runAndPrint(t, { input: 'buy', json: false, yes: true }, term.io);
    assert.equal(code, 0, term.stderr());
    assert.match(term.stderr(), /its outcome is unknown: .*300 ms/);
    assert.match(term.stdout(), /Noted: the order went through\./);
    const stats = await t.tools.callTool({ name: 'getServerStats', arguments: {} });
    await new Promise((r) => setTimeout(r, 1500));
    const later = await t.tools.callTool({ name: 'getServerStats', arguments: {} });
    const executed = (r: typeof later) =>
      (r.structuredContent as { executed?: Record<string, number> } | undefined)?.executed?.['placeOrder'] ?? 0;
    assert.ok(stats.ok);
    assert.equal(executed(later), 1, 'the venue finished the order once; it was not repeated');
  });
});
