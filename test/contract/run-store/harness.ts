import assert from 'node:assert/strict';
import {
  ToolgateError,
  draft,
  type ErrorCode,
  type EventDraft,
  type NewRun,
  type RunStore,
} from '../../../src/core/index.ts';

/** What an implementation's test hands the contract suite: a fresh, empty store. */
export interface RunStoreHarness {
  store: RunStore;
  /** Closes whatever the harness opened and removes its files. */
  cleanup(): Promise<void>;
  /** Opens the same storage again (after `store.close()`): enables the durability tests. */
  reopen?: () => Promise<RunStore>;
}

export type RunStoreFactory = () => Promise<RunStoreHarness>;

/** Runs one test against a fresh store and always cleans up. */
export async function withStore(
  factory: RunStoreFactory,
  work: (store: RunStore, harness: RunStoreHarness) => Promise<void>,
): Promise<void> {
  const harness = await factory();
  try {
    await work(harness.store, harness);
  } finally {
    await harness.cleanup();
  }
}

export function newRun(overrides: Partial<NewRun> = {}): NewRun {
  return { input: 'What is the price for 10 MW tomorrow?', model: 'test-model', ...overrides };
}

export function userMessage(text: string): EventDraft {
  return draft('user_message', { text });
}

/** A validator for assert.rejects/throws: a ToolgateError with this code. */
export function toolgateError(code: ErrorCode): (error: unknown) => true {
  return (error: unknown) => {
    assert.ok(error instanceof ToolgateError, `expected a ToolgateError(${code}), got ${String(error)}`);
    assert.equal(error.code, code, `expected code ${code}, got ${error.code}: ${error.message}`);
    return true;
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function isIsoTime(value: string): boolean {
  return new Date(value).toISOString() === value;
}

/** 1, 2, …, n */
export function oneTo(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1);
}
