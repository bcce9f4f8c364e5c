import { setTimeout as sleep } from 'node:timers/promises';
import type { Exchange } from './domain/exchange.ts';
import { REPLAY_META_KEY, idempotencyKeyOf } from './idempotency.ts';
import type { IdempotencyStore } from './idempotency.ts';
import type { ServerStats } from './server-stats.ts';
import type { ToolReply } from './tool-reply.ts';
import { errorReply } from './tool-reply.ts';

/** Misbehaviour on demand, so clients can be tested against slow, crashing and failing tools. */
export interface FaultOptions {
  delays: ReadonlyMap<string, number>;
  exitOn: ReadonlySet<string>;
  failOn: ReadonlySet<string>;
}

export const NO_FAULTS: FaultOptions = { delays: new Map(), exitOn: new Set(), failOn: new Set() };

/** Everything the tools share across connections (HTTP builds one McpServer per request). */
export interface ToolRuntime {
  exchange: Exchange;
  stats: ServerStats;
  idempotency: IdempotencyStore;
  faults: FaultOptions;
  /** Saves the venue after a write; a no-op without --state. */
  persist: () => void;
  /** Ends the process for --exit-on; `reason` is for the log. */
  exit: (args: { code: number; reason: string }) => void;
  now: () => Date;
}

export interface ToolInvocation {
  tool: string;
  write: boolean;
  /** The request's `_meta` as the SDK hands it to the handler. */
  meta: Record<string, unknown> | undefined;
  execute: () => ToolReply;
}

/**
 * Runs one tool call with the cross-cutting rules: counting, injected faults,
 * idempotent replay of writes, and saving the state after a write.
 */
export async function runTool(runtime: ToolRuntime, call: ToolInvocation): Promise<ToolReply> {
  const { stats, faults, idempotency } = runtime;
  stats.countReceived(call.tool);
  if (faults.exitOn.has(call.tool)) {
    runtime.exit({ code: 1, reason: `${call.tool} called and the server was started with --exit-on ${call.tool}` });
  }
  if (faults.failOn.has(call.tool)) {
    throw new Error(`injected failure: the server was started with --fail-on ${call.tool}`);
  }
  const delayMs = faults.delays.get(call.tool) ?? 0;
  const key = call.write ? idempotencyKeyOf(call.meta) : undefined;

  const earlier = key === undefined ? undefined : idempotency.find(key);
  if (earlier !== undefined) {
    if (delayMs > 0) await sleep(delayMs);
    if (earlier.tool !== call.tool) {
      return errorReply({
        code: 'idempotency_conflict',
        message: `idempotency key '${key}' was already used for ${earlier.tool}; use a new key for each distinct call`,
      });
    }
    const first = await earlier.reply;
    stats.countDeduplicated();
    return { ...first, _meta: { ...first._meta, [REPLAY_META_KEY]: true } };
  }

  const running = (async () => {
    // The delay comes before the work, and a cancelled call still runs after
    // it, as on a slow real venue: a retry must rely on the idempotency key.
    if (delayMs > 0) await sleep(delayMs);
    const result = call.execute();
    stats.countExecuted(call.tool);
    if (call.write) {
      if (key !== undefined)
        idempotency.remember({ key, tool: call.tool, reply: structuredClone(result), at: runtime.now().toISOString() });
      runtime.persist();
    }
    return result;
  })();
  if (key !== undefined) idempotency.begin({ key, tool: call.tool, reply: running });
  return running;
}
