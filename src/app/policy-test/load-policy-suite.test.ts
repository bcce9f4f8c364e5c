import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolgateError } from '../../core/index.ts';
import { loadPolicySuite } from './load-policy-suite.ts';

let dir: string;
let count = 0;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-policy-suite-'));
  mkdirSync(join(dir, 'runs'));
  writeFileSync(join(dir, 'runs', 'orders.jsonl'), '');
  writeFileSync(join(dir, 'toolgate.yaml'), '');
  writeFileSync(join(dir, 'policy.yaml'), '');
});
after(() => rmSync(dir, { recursive: true, force: true }));

function suiteFile(text: string): string {
  count += 1;
  const file = join(dir, `suite-${count}.yaml`);
  writeFileSync(file, text);
  return file;
}

const RUNS = 'runs:\n  - file: ./runs/orders.jsonl\n';

/** The error a suite is refused with; fails when it is accepted. */
function refusal(text: string): ToolgateError {
  const file = suiteFile(text);
  try {
    loadPolicySuite(file);
  } catch (error) {
    assert.ok(error instanceof ToolgateError, String(error));
    return error;
  }
  assert.fail(`the suite was accepted:\n${text}`);
}

describe('loadPolicySuite', () => {
  it('reads every kind of expectation, resolves paths next to the suite and names each expectation', () => {
    const file = suiteFile(
      [
        'description: orders',
        'config: ./toolgate.yaml',
        'policy: ./policy.yaml',
        'runs:',
        '  - file: ./runs/orders.jsonl',
        '  - id: run_0123',
        'expect:',
        '  - noNewDenials: true',
        '  - noNewApprovals: true',
        '    name: nobody waits',
        '  - tool: power-exchange/placeOrder',
        '    when: "args.qty * args.price > 10000"',
        '    decision: approval_required',
        '  - tool: "fs/*"',
        '    decision: [denied, invalid, denied]',
        '  - tenant: globex',
        '    never: "fs/*"',
        '  - never: admin/*',
        '  - answerUnchanged: true',
      ].join('\n'),
    );
    const suite = loadPolicySuite(file);
    assert.equal(suite.file, file);
    assert.equal(suite.description, 'orders');
    assert.equal(suite.config, join(dir, 'toolgate.yaml'));
    assert.equal(suite.policy, join(dir, 'policy.yaml'));
    assert.deepEqual(suite.runs, [{ file: join(dir, 'runs', 'orders.jsonl') }, { id: 'run_0123' }]);
    assert.deepEqual(
      suite.expect.map((e) => [e.kind, e.name]),
      [
        ['noNewDenials', 'no new denials'],
        ['noNewApprovals', 'nobody waits'],
        ['decision', 'power-exchange/placeOrder when args.qty * args.price > 10000: approval_required'],
        ['decision', 'fs/*: denied or invalid'],
        ['never', 'tenant globex never reaches fs/*'],
        ['never', 'no run reaches admin/*'],
        ['answerUnchanged', 'answer unchanged'],
      ],
    );
    const placeOrder = suite.expect[2];
    assert.ok(placeOrder?.kind === 'decision' && placeOrder.when !== undefined);
    const facts = { tool: 'placeOrder', tenant: null, user: null, context: {} };
    assert.deepEqual(placeOrder.when.test({ ...facts, args: { qty: 7000, price: 2 } }), { matched: true });
    assert.deepEqual(placeOrder.when.test({ ...facts, args: { qty: 1, price: 2 } }), { matched: false });
    assert.ok('error' in placeOrder.when.test({ ...facts, args: {} }), 'a missing argument is an error, not false');
    const fs = suite.expect[3];
    assert.deepEqual(fs?.kind === 'decision' ? fs.decisions : undefined, ['denied', 'invalid']);
  });

  it('a suite file that does not exist, or is not YAML, is refused naming the file', () => {
    assert.throws(() => loadPolicySuite(join(dir, 'nope.yaml')), /policy test suite .*nope\.yaml does not exist/);
    const error = refusal('runs: [\n');
    assert.equal(error.code, 'config_invalid');
    assert.match(error.message, /suite-\d+\.yaml: not valid YAML/);
  });

  it('an empty suite asks for runs and expectations, with an example of each', () => {
    const error = refusal('');
    assert.equal(error.code, 'config_invalid');
    assert.match(error.message, /is not a valid policy test suite:/);
    assert.match(error.message, /- runs: a list of recorded runs, e\.g\. runs: \[\{ file: /);
    assert.match(error.message, /- expect: a list of expectations, e\.g\. expect: \[\{ noNewDenials: true \}\]/);
    assert.match(error.message, /docs\/policy-test\.md/);
  });

  it('an unknown top-level key names the closest one', () => {
    const error = refusal(`${RUNS}expects:\n  - noNewDenials: true\n`);
    assert.match(error.message, /- expects: unknown key — did you mean "expect"\?/);
  });

  it('a run must be a file or an id, not both, and a file must exist next to the suite', () => {
    const error = refusal(
      [
        'runs:',
        '  - file: ./runs/orders.jsonl',
        '    id: run_1',
        '  - path: ./runs/orders.jsonl',
        '  - file: ./runs/missing.jsonl',
        '  - id: ""',
        'expect:',
        '  - noNewDenials: true',
      ].join('\n'),
    );
    assert.match(error.message, /- runs\.0: a run is either file: or id:, not both; list them as two entries/);
    assert.match(error.message, /- runs\.1: a run is \{ file: .*\} .* or \{ id: run_01J… \}/);
    assert.match(
      error.message,
      /- runs\.2\.file: \.\/runs\/missing\.jsonl does not exist \(a relative path is read from /,
    );
    assert.match(error.message, /- runs\.3\.id: a run id must not be empty/);
  });

  it('an entry naming no kind of expectation: a misspelt kind gets the closest name', () => {
    const error = refusal(`${RUNS}expect:\n  - noNewDenial: true\n`);
    assert.match(error.message, /- expect\.0\.noNewDenial: unknown key — did you mean "noNewDenials"\?/);
  });

  it('an entry with no key at all says which kinds there are', () => {
    const error = refusal(`${RUNS}expect:\n  - name: empty\n  - just a string\n`);
    assert.match(error.message, /- expect\.0: say what to expect with one of noNewDenials, noNewApprovals, /);
    assert.match(error.message, /- expect\.1: an expectation is a mapping, e\.g\. \{ noNewDenials: true \}/);
  });

  it('decision: or tenant: without the key they belong to says which key is missing', () => {
    const error = refusal(`${RUNS}expect:\n  - decision: denied\n  - tenant: globex\n`);
    assert.match(error.message, /- expect\.0\.decision: decision: belongs to a tool: expectation; add tool:/);
    assert.match(error.message, /- expect\.1\.tenant: tenant: belongs to a never: expectation; add never:/);
  });

  it('two kinds in one entry are refused: one expectation per entry', () => {
    const error = refusal(`${RUNS}expect:\n  - noNewDenials: true\n    never: "fs/*"\n`);
    assert.match(error.message, /- expect\.0: one expectation per entry: noNewDenials and never are 2 kinds/);
  });

  it('false is not a way to turn an expectation off, and a bad decision lists the decisions', () => {
    const error = refusal(
      `${RUNS}expect:\n  - noNewDenials: false\n  - tool: placeOrder\n    decision: approved\n  - tool: placeOrder\n`,
    );
    assert.match(error.message, /- expect\.0\.noNewDenials: noNewDenials: true turns this expectation on; remove/);
    assert.match(
      error.message,
      /- expect\.1\.decision: a decision is one of allowed, denied, approval_required, dry_run, invalid/,
    );
    assert.match(error.message, /- expect\.2\.decision: /);
  });

  it('an unknown key inside an expectation names the keys of that kind', () => {
    const error = refusal(`${RUNS}expect:\n  - tool: placeOrder\n    decision: denied\n    whenn: "true"\n`);
    assert.match(error.message, /- expect\.0\.whenn: unknown key — did you mean "when"\?/);
  });

  it('a bad tool pattern is refused with the pattern syntax', () => {
    const error = refusal(`${RUNS}expect:\n  - tool: "place order"\n    decision: denied\n`);
    assert.match(error.message, /- expect\.0\.tool: a tool pattern is "server\/tool", a bare tool name, or a glob/);
  });

  it('a when: that is not CEL, or reads an unknown variable, is refused at load with the place', () => {
    const error = refusal(
      [
        RUNS.trimEnd(),
        'expect:',
        '  - tool: placeOrder',
        '    when: "args.qty >"',
        '    decision: denied',
        '  - tool: placeOrder',
        '    when: "order.qty > 1"',
        '    decision: denied',
        '  - tool: placeOrder',
        `    when: '"yes"'`,
        '    decision: denied',
      ].join('\n'),
    );
    assert.match(error.message, /- expect\.0\.when: not a CEL condition over args, tool, tenant, user and context: /);
    assert.match(error.message, /"args\.qty >".*character \d+/);
    assert.match(error.message, /- expect\.1\.when: .*order/);
    assert.match(error.message, /- expect\.2\.when: .*not true or false/);
  });

  it('config: and policy: files must exist', () => {
    const error = refusal(`config: ./nope.yaml\npolicy: ./nope-policy.yaml\n${RUNS}expect:\n  - noNewDenials: true\n`);
    assert.match(error.message, /- config: \.\/nope\.yaml does not exist/);
    assert.match(error.message, /- policy: \.\/nope-policy\.yaml does not exist/);
  });
});
