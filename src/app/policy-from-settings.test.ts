// Conditions (`when:`) in toolgate.yaml: their shape checked with the config, their expressions and schemas compiled
// with the policy, each mistake a config_invalid line naming its key path.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolgateError } from '../core/index.ts';
import { loadConfig, parseConfig } from '../config/load-config.ts';
import { resolveSettings } from '../config/resolve-settings.ts';
import { decideCall, resolveToolPolicy } from '../gate/index.ts';
import { PLACE_ORDER } from '../../test/support/test-tools.ts';
import { createToolgate } from './create-toolgate.ts';
import { checkToolConditions, policyFromSettings } from './policy-from-settings.ts';
import { Toolgate } from './toolgate.ts';

function configError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ToolgateError, String(error));
    assert.equal(error.code, 'config_invalid');
    return error.message;
  }
  assert.fail('no error');
}

const policyOf = (tools: unknown) => policyFromSettings(resolveSettings(parseConfig({ tools }), {}, {}));

describe('conditions in the config', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-conditions-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a valid condition reaches the gate and decides there', () => {
    const policy = policyOf({
      'power-exchange/placeOrder': {
        approval: 'never',
        conditions: [{ when: 'args.qty * args.price > 10000', approval: 'required', reason: 'big order' }],
      },
    });
    const resolved = resolveToolPolicy(policy, PLACE_ORDER, 'placeOrder');
    const decide = (qty: number) =>
      decideCall({
        name: 'placeOrder',
        lookup: { kind: 'visible', tool: PLACE_ORDER, policy: resolved },
        prepared: { ok: true, arguments: { qty, price: 10 }, normalisations: [], injected: [] },
        allowed: { allowed: true },
        dryRun: false,
        untrusted: [],
      }).kind;
    assert.equal(decide(10), 'allowed');
    assert.equal(decide(2000), 'approval_required');
  });

  it('a CEL syntax error names the key path, the expression and the position', () => {
    const message = configError(() =>
      policyOf({ 'power-exchange/placeOrder': { conditions: [{ when: 'args.qty * * 2', approval: 'required' }] } }),
    );
    assert.match(message, /^the config is not a valid toolgate config:$/m);
    const line =
      '  - tools.power-exchange/placeOrder.conditions.0.when: "args.qty * * 2" is not a valid CEL expression: ' +
      'Unexpected token: MULTIPLY, at character 12';
    assert.ok(message.split('\n').includes(line), message);
    assert.match(message, /docs\/policy\.md/);
  });

  it('an unknown variable and a bad JSON Schema are config errors too; every problem is listed', () => {
    const message = configError(() =>
      policyOf({
        'fs/*': {
          conditions: [
            { when: { args: { properties: { path: { pattern: '([' } } } }, deny: 'x' },
            { when: 'qty > 10', approval: 'required' },
          ],
        },
      }),
    );
    assert.match(message, /^ {2}- tools\.fs\/\*\.conditions\.0\.when: args is not a usable JSON Schema: /m);
    const line =
      '  - tools.fs/*.conditions.1.when: "qty > 10": Unknown variable: qty, at character 1 ' +
      '(the variables are args, tool, tenant, user, context)';
    assert.ok(message.split('\n').includes(line), message);
  });

  it('the shape is checked with the rest of the config: a typo, a rule that does nothing, an empty when', () => {
    const message = configError(() =>
      parseConfig(
        {
          tools: {
            a: { conditions: [{ when: 'true', approvl: 'never' }] },
            b: { conditions: [{ when: 'true' }] },
            c: { conditions: [{ when: { arg: { type: 'object' } }, deny: 'x' }] },
            d: { conditions: [{ when: '  ', deny: 'x' }] },
          },
        },
        { source: 'toolgate.yaml' },
      ),
    );
    assert.match(message, /^toolgate\.yaml is not a valid toolgate config:$/m);
    assert.match(message, /^ {2}- tools\.a\.conditions\.0\.approvl: unknown key — did you mean "approval"\?$/m);
    assert.match(
      message,
      /^ {2}- tools\.b\.conditions\.0: a condition sets "approval" .*"deny" \(a reason\), or both$/m,
    );
    assert.match(message, /^ {2}- tools\.c\.conditions\.0\.when\.arg: unknown key — did you mean "args"\?$/m);
    assert.match(message, /^ {2}- tools\.d\.conditions\.0\.when: a condition must not be empty/m);
  });

  it('a file with a bad condition: the error names the file; a Toolgate is never built from it', () => {
    const file = join(dir, 'toolgate.yaml');
    writeFileSync(
      file,
      'tools:\n  "power-exchange/placeOrder":\n    conditions:\n' +
        '      - when: "args.qty >"\n        approval: required\n',
    );
    const settings = resolveSettings(loadConfig({ file }).config, {}, {});
    const message = configError(() => checkToolConditions(settings.tools, file));
    assert.ok(message.startsWith(`${file} is not a valid toolgate config:`), message);
    assert.match(message, /tools\.power-exchange\/placeOrder\.conditions\.0\.when: "args\.qty >" is not a valid CEL/);
    assert.match(
      configError(() => new Toolgate({ settings })),
      /conditions\.0\.when: "args\.qty >"/,
    );
  });

  it('createToolgate names a bad condition by its option path, before anything starts', async () => {
    await assert.rejects(
      createToolgate({
        policy: { tools: { 'local/quote': { conditions: [{ when: { args: { type: 'strnig' } }, deny: 'x' }] } } },
      }),
      (error: unknown) => {
        assert.ok(error instanceof ToolgateError && error.code === 'config_invalid', String(error));
        assert.match(error.message, /^createToolgate: invalid options:$/m);
        assert.match(
          error.message,
          /^ {2}- policy\.tools\.local\/quote\.conditions\.0\.when: args is not a usable JSON Schema: /m,
        );
        return true;
      },
    );
  });
});
