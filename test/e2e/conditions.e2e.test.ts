// Conditions (`when:`) on tool rules end to end: the real power-exchange MCP server, a scriptable model, a SQLite
// store, and the CLI reading a config with a broken condition.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Toolgate } from '../../src/app/toolgate.ts';
import type { ToolgateConfig } from '../../src/config/config-schema.ts';
import { resolveSettings } from '../../src/config/resolve-settings.ts';
import { isJsonObject, type JsonObject, type RunEvent } from '../../src/core/index.ts';
import { openSqliteRunStore } from '../../src/store/sqlite/open-sqlite-run-store.ts';
import { callIdOf, ofType } from '../support/events.ts';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER, runCli } from '../support/processes.ts';

const LIMIT = 'args.qty * args.price > 10000';
const LIMIT_REASON = 'orders above 10,000 need a person';
const DESK_ONLY = 'only desk-* accounts may be registered';

const TOOLS: NonNullable<ToolgateConfig['tools']> = {
  'power-exchange/placeOrder': {
    approval: 'never',
    conditions: [{ when: LIMIT, approval: 'required', reason: LIMIT_REASON }],
  },
  'power-exchange/registerUser': {
    approval: 'never',
    conditions: [
      {
        when: { args: { properties: { userId: { not: { pattern: '^desk-' } } }, required: ['userId'] } },
        deny: DESK_ONLY,
      },
      { when: 'tenant == "globex"', deny: 'globex registers no one' },
    ],
  },
};

describe('policy conditions e2e', () => {
  let mock: MockOpenAI;
  let dir: string;
  let toolgate: Toolgate;
  before(async () => {
    mock = await startMockOpenAI();
    dir = mkdtempSync(join(tmpdir(), 'toolgate-conditions-e2e-'));
    const settings = resolveSettings(
      {
        model: 'openai:m',
        providers: { openai: { baseUrl: mock.url, apiKey: 'k', maxRetries: 0 } },
        servers: { 'power-exchange': { command: process.execPath, args: [POWER_EXCHANGE_SERVER] } },
        tools: TOOLS,
      },
      {},
      {},
    );
    toolgate = new Toolgate({ settings, store: await openSqliteRunStore({ path: join(dir, 'runs.db') }) });
  });
  after(async () => {
    await toolgate.close();
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (id: string, name: string, args: JsonObject) => ({
    toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
  });
  const order = (qty: number) => ({ userId: 'bob', side: 'BUY', price: 50, qty, symbol: 'DE-BASE-D+1' });
  const stats = { toolCalls: [{ id: 'stats', name: 'getServerStats', arguments: '{}' }] };

  /** What the exchange was sent, by tool, as its getServerStats said at the end of the run. */
  function received(log: readonly RunEvent[]): Record<string, number> {
    const result = ofType(log, 'tool_result').findLast((e) => e.data.name === 'getServerStats');
    const content = result?.data.structuredContent;
    const counts = isJsonObject(content) ? content['received'] : undefined;
    assert.ok(isJsonObject(counts), JSON.stringify(content));
    return Object.fromEntries(Object.entries(counts).map(([tool, n]) => [tool, Number(n)]));
  }

  it('an order below the limit runs without a person; above it, it waits, and runs once approved', async () => {
    mock.enqueue(call('small', 'placeOrder', order(10)), call('big', 'placeOrder', order(300)));
    let run = await toolgate.run({ input: 'buy 10, then 300' });
    assert.equal(run.status, 'waiting_approval', JSON.stringify(run.error));
    let log = await toolgate.store.readEvents(run.id);
    const decisions = ofType(log, 'gate_decision');
    assert.deepEqual(
      decisions.map((e) => [e.data.decision, e.data.condition]),
      [
        ['allowed', undefined],
        [
          'approval_required',
          { pattern: 'power-exchange/placeOrder', index: 0, when: LIMIT, effect: 'approval', reason: LIMIT_REASON },
        ],
      ],
    );
    assert.equal(decisions[1]?.data.reason, LIMIT_REASON);
    assert.equal(decisions[1]?.data.policyRule, 'power-exchange/placeOrder');
    assert.equal(run.pendingApproval?.toolCallId, callIdOf(log, 'big'));
    assert.equal(ofType(log, 'approval_required')[0]?.data.reason, 'policy');
    assert.deepEqual(
      ofType(log, 'tool_call').map((e) => e.data.arguments['qty']),
      [10],
      'only the small order was sent',
    );

    mock.enqueue(stats, { text: 'both placed' });
    run = await toolgate.submitInput(run.id, {
      type: 'approval',
      toolCallId: run.pendingApproval?.toolCallId ?? '',
      decision: 'approve',
      userId: 'ops',
    });
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    log = await toolgate.store.readEvents(run.id);
    assert.equal(received(log)['placeOrder'], 2, 'the exchange got the big order only after the approval');
    const approved = ofType(log, 'gate_decision').findLast((e) => e.data.name === 'placeOrder');
    assert.equal(approved?.data.decision, 'allowed');
    assert.equal(approved?.data.reason, `approved by ops; ${LIMIT_REASON}`);
  });

  it("a deny condition on registerUser's arguments refuses the call, saying why; the venue never sees it", async () => {
    const first = mock.requests.length;
    mock.enqueue(
      call('bad', 'registerUser', { userId: 'mallory', name: 'M' }),
      call('good', 'registerUser', { userId: 'desk-7', name: 'Desk 7' }),
      stats,
      { text: 'registered desk-7' },
    );
    const run = await toolgate.run({ input: 'register mallory, then desk-7' });
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    const log = await toolgate.store.readEvents(run.id);
    const refused = ofType(log, 'gate_decision').find((e) => e.data.toolCallId === callIdOf(log, 'bad'));
    assert.equal(refused?.data.decision, 'denied');
    assert.equal(refused?.data.reason, DESK_ONLY);
    assert.deepEqual(refused?.data.condition, {
      pattern: 'power-exchange/registerUser',
      index: 0,
      when: '{"args":{"properties":{"userId":{"not":{"pattern":"^desk-"}}},"required":["userId"]}}',
      effect: 'deny',
    });
    const result = ofType(log, 'tool_result').find((e) => e.data.toolCallId === callIdOf(log, 'bad'));
    assert.deepEqual(result?.data.error, { code: 'denied', message: `registerUser was refused: ${DESK_ONLY}` });
    const told = JSON.stringify(mock.requests[first + 1]?.body);
    assert.ok(told.includes(`registerUser was refused: ${DESK_ONLY}`), 'the model was told why');
    assert.deepEqual(
      ofType(log, 'tool_call').map((e) => [e.data.name, e.data.arguments['userId']]),
      [
        ['registerUser', 'desk-7'],
        ['getServerStats', undefined],
      ],
    );
    assert.equal(received(log)['registerUser'], 1, 'the exchange received only the allowed registration');
  });

  it("the run's tenant is in the expression: globex may not register even a desk account", async () => {
    mock.enqueue(call('g', 'registerUser', { userId: 'desk-9' }), { text: 'refused' });
    const run = await toolgate.run({ input: 'register desk-9', tenantId: 'globex' });
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    const log = await toolgate.store.readEvents(run.id);
    const decision = ofType(log, 'gate_decision')[0]?.data;
    assert.equal(decision?.decision, 'denied');
    assert.deepEqual(decision?.condition, {
      pattern: 'power-exchange/registerUser',
      index: 1,
      when: 'tenant == "globex"',
      effect: 'deny',
    });
    assert.deepEqual(ofType(log, 'tool_call'), [], 'nothing was sent');
  });

  it('the CLI refuses a config whose condition does not parse: exit 2, naming file, key path, position', async () => {
    const file = join(dir, 'broken.yaml');
    writeFileSync(
      file,
      'tools:\n  "power-exchange/placeOrder":\n    conditions:\n' +
        '      - when: "args.qty * * args.price > 10000"\n        approval: required\n',
    );
    const { code, stdout, stderr } = await runCli(['tools', '--config', file]);
    assert.equal(code, 2, stderr);
    assert.equal(stdout, '');
    assert.ok(stderr.includes(`${file} is not a valid toolgate config:`), stderr);
    const line =
      '  - tools.power-exchange/placeOrder.conditions.0.when: "args.qty * * args.price > 10000" is not a valid ' +
      'CEL expression: Unexpected token: MULTIPLY, at character 12';
    assert.ok(stderr.split('\n').includes(line), stderr);
  });
});
