import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_HOST, parseServerArgs } from './cli-options.ts';

const tools = ['placeOrder', 'getOrderBook'];

function parse(...argv: string[]) {
  return parseServerArgs({ argv, tools });
}

function message(...argv: string[]): string {
  const result = parse(...argv);
  assert.equal(result.ok, false, `expected ${argv.join(' ')} to be refused`);
  return result.ok ? '' : result.message;
}

describe('parseServerArgs', () => {
  it('defaults to stdio without faults or state', () => {
    const result = parse();
    assert.ok(result.ok);
    assert.deepEqual(result.options.transport, { kind: 'stdio' });
    assert.equal(result.options.statePath, undefined);
    assert.equal(
      result.options.faults.delays.size + result.options.faults.exitOn.size + result.options.faults.failOn.size,
      0,
    );
  });

  it('reads HTTP, host, state and repeatable fault options', () => {
    const result = parse(
      '--http',
      '0',
      '--host',
      '0.0.0.0',
      '--state',
      'venue.json',
      '--delay',
      'placeOrder=1500',
      '--delay',
      'getOrderBook=0',
      '--exit-on',
      'placeOrder',
      '--fail-on',
      'getOrderBook',
    );
    assert.ok(result.ok);
    assert.deepEqual(result.options.transport, { kind: 'http', port: 0, host: '0.0.0.0' });
    assert.equal(result.options.statePath, 'venue.json');
    assert.deepEqual(
      [...result.options.faults.delays],
      [
        ['placeOrder', 1500],
        ['getOrderBook', 0],
      ],
    );
    assert.deepEqual([...result.options.faults.exitOn], ['placeOrder']);
    assert.deepEqual([...result.options.faults.failOn], ['getOrderBook']);
  });

  it('reads the starting cash of new users', () => {
    const result = parse('--initial-cash', '1000000');
    assert.ok(result.ok);
    assert.equal(result.options.initialCashEUR, 1_000_000);
    const none = parse();
    assert.ok(none.ok);
    assert.equal(none.options.initialCashEUR, undefined);
  });

  it('binds HTTP to the loopback interface unless told otherwise', () => {
    const result = parse('--http', '8080');
    assert.ok(result.ok);
    assert.deepEqual(result.options.transport, { kind: 'http', port: 8080, host: DEFAULT_HOST });
  });

  it('refuses bad options with a message naming the problem', () => {
    assert.match(message('--bogus'), /--bogus/);
    assert.match(message('stray'), /stray/);
    assert.match(message('--http', 'abc'), /--http abc: the port must be an integer/);
    assert.match(message('--http', '70000'), /0 to 65535/);
    assert.match(message('--host', 'x'), /--host only applies to HTTP mode/);
    assert.match(message('--delay', 'placeOrder'), /expected TOOL=MS/);
    assert.match(message('--delay', 'nope=5'), /--delay nope: unknown tool; tools are placeOrder, getOrderBook/);
    assert.match(message('--exit-on', 'nope'), /--exit-on nope: unknown tool/);
    assert.match(message('--fail-on', 'nope'), /--fail-on nope: unknown tool/);
    assert.match(message('--state', ''), /--state needs a file path/);
    assert.match(message('--initial-cash=-5'), /--initial-cash -5: expected an amount in EUR/);
    assert.match(message('--initial-cash', '1.234'), /in whole cents/);
  });

  it('recognises --help', () => {
    const result = parse('-h');
    assert.ok(result.ok);
    assert.equal(result.options.help, true);
  });
});
