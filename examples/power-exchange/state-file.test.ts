import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Exchange } from './domain/exchange.ts';
import { seedDemo } from './domain/seed.ts';
import { STATE_FILE_VERSION, loadStateFile, saveStateFile } from './state-file.ts';
import type { VenueState } from './state-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'power-exchange-state-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function demoState(): VenueState {
  const exchange = new Exchange();
  seedDemo(exchange);
  return {
    version: STATE_FILE_VERSION,
    savedAt: new Date().toISOString(),
    exchange: exchange.snapshot(),
    idempotency: [
      {
        key: 'run-1:call-1',
        tool: 'registerUser',
        at: new Date().toISOString(),
        reply: { content: [{ type: 'text', text: 'ok' }], structuredContent: { a: 1 } },
      },
    ],
  };
}

describe('state file', () => {
  it('round-trips a saved state and leaves no temporary file behind', () => {
    const path = join(dir, 'round-trip.json');
    const state = demoState();
    saveStateFile(path, state);
    saveStateFile(path, state);
    assert.deepEqual(loadStateFile(path), { ok: true, state });
    assert.deepEqual(
      readdirSync(dir).filter((name) => name.startsWith('round-trip')),
      ['round-trip.json'],
    );
  });

  it('treats a missing file as a fresh start', () => {
    assert.deepEqual(loadStateFile(join(dir, 'missing.json')), { ok: true, state: undefined });
  });

  it('explains a file that is not JSON', () => {
    const path = join(dir, 'garbage.json');
    writeFileSync(path, '{"version": 1, "exch');
    const result = loadStateFile(path);
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.message, /is not valid JSON .*fix or delete it/);
  });

  it('says where a JSON file departs from the state format', () => {
    const path = join(dir, 'wrong.json');
    const state = demoState() as unknown as { exchange: { wallets: { cashMilli: unknown }[] } };
    const first = state.exchange.wallets[0];
    assert.ok(first);
    first.cashMilli = 'lots';
    writeFileSync(path, JSON.stringify(state));
    const result = loadStateFile(path);
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.message, /not a power-exchange state at exchange\.wallets\.0\.cashMilli/);
  });
});
