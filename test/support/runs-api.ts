// The runs API of a `toolgate serve` (or gateway) process, as the tests that
// break its database use it: create, read and wait for runs, and check logs.
import assert from 'node:assert/strict';
import type { Run, RunEvent } from '../../src/core/index.ts';

export const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

export async function createRun(url: string, input: string): Promise<Run> {
  const response = await fetch(`${url}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input }),
  });
  const body = await response.text();
  assert.equal(response.status, 201, body);
  return JSON.parse(body) as Run;
}

export async function getRun(url: string, id: string): Promise<Run> {
  const response = await fetch(`${url}/v1/runs/${id}`);
  const body = await response.text();
  assert.equal(response.status, 200, body);
  return JSON.parse(body) as Run;
}

export async function readEvents(url: string, id: string): Promise<RunEvent[]> {
  const response = await fetch(`${url}/v1/runs/${id}/events?format=json`);
  const body = await response.text();
  assert.equal(response.status, 200, body);
  return (JSON.parse(body) as { events: RunEvent[] }).events;
}

/**
 * Polls until `check` resolves true, every `everyMs`; `onPoll` runs before each check (e.g. to break something again).
 */
export async function pollUntil(
  check: () => Promise<boolean>,
  what: string,
  options: { timeoutMs?: number; everyMs?: number; onPoll?: () => Promise<void> } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    await options.onPoll?.();
    if (await check()) return;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 50));
  }
}

/** Ids 1..n without gap or duplicate, each model turn logged once, the terminal event (if any) last. */
export function assertWellFormedLog(label: string, events: readonly RunEvent[]): void {
  assert.deepEqual(
    events.map((e) => e.id),
    events.map((_, i) => i + 1),
    `${label}: ids 1..n, no gap, no duplicate`,
  );
  const turns = events.flatMap((e) =>
    e.type === 'assistant_message' ? [`${e.data.step}/${e.data.attempt ?? 1}`] : [],
  );
  assert.deepEqual([...new Set(turns)], turns, `${label}: a model turn was logged twice: ${turns.join(', ')}`);
  const terminalAt = events.findIndex(
    (e) => e.type === 'run_completed' || e.type === 'run_failed' || e.type === 'run_cancelled',
  );
  if (terminalAt !== -1) assert.equal(terminalAt, events.length - 1, `${label}: nothing after the terminal event`);
}

/** GET /readyz: its status and body. */
export async function readiness(url: string): Promise<{ status: number; body: { status: string; reason?: string } }> {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as { status: string; reason?: string } };
}
