import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as z from 'zod';
import type { ExchangeSnapshot } from './domain/types.ts';
import type { IdempotencyRecord } from './idempotency.ts';

export const STATE_FILE_VERSION = 1;

/** Everything that must outlive a restart: the venue and the idempotency keys. */
export interface VenueState {
  version: typeof STATE_FILE_VERSION;
  savedAt: string;
  exchange: ExchangeSnapshot;
  idempotency: IdempotencyRecord[];
}

export type LoadStateResult = { ok: true; state: VenueState | undefined } | { ok: false; message: string };

const count = z.number().int().nonnegative();
const side = z.enum(['BUY', 'SELL']);
const stateSchema = z.object({
  version: z.literal(STATE_FILE_VERSION),
  savedAt: z.string(),
  exchange: z.object({
    users: z.array(z.object({ userId: z.string(), name: z.string(), createdAt: z.string() })),
    wallets: z.array(
      z.object({
        userId: z.string(),
        cashMilli: z.number().int(),
        energyLots: z.number().int(),
        reservedCashMilli: count,
        reservedEnergyLots: count,
      }),
    ),
    orders: z.array(
      z.object({
        orderId: z.string(),
        seq: count,
        userId: z.string(),
        symbol: z.string(),
        side,
        priceCents: z.number().int().positive(),
        qtyLots: z.number().int().positive(),
        filledLots: count,
        status: z.enum(['open', 'filled', 'cancelled']),
        createdAt: z.string(),
        updatedAt: z.string(),
      }),
    ),
    trades: z.array(
      z.object({
        tradeId: z.string(),
        symbol: z.string(),
        priceCents: z.number().int().positive(),
        qtyLots: z.number().int().positive(),
        buyOrderId: z.string(),
        sellOrderId: z.string(),
        buyerId: z.string(),
        sellerId: z.string(),
        aggressorSide: side,
        executedAt: z.string(),
      }),
    ),
    counters: z.object({ user: count, order: count, trade: count }),
  }),
  idempotency: z.array(
    z.object({
      key: z.string(),
      tool: z.string(),
      at: z.string(),
      reply: z.looseObject({
        content: z.array(z.object({ type: z.literal('text'), text: z.string() })),
        structuredContent: z.record(z.string(), z.json()).optional(),
        isError: z.boolean().optional(),
        _meta: z.record(z.string(), z.json()).optional(),
      }),
    }),
  ),
});

/** Reads a state file; a missing file is a fresh start, anything unreadable is an error message. */
export function loadStateFile(path: string): LoadStateResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, state: undefined };
    return { ok: false, message: `cannot read state file ${path}: ${(error as Error).message}` };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      message: `state file ${path} is not valid JSON (${(error as Error).message}); fix or delete it to start fresh`,
    };
  }
  const parsed = stateSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '' : ` at ${issue.path.join('.')}`;
    return {
      ok: false,
      message:
        `state file ${path} is not a power-exchange state${where}: ` +
        `${issue?.message ?? 'invalid'}; fix or delete it to start fresh`,
    };
  }
  return { ok: true, state: parsed.data as VenueState };
}

/** Writes the state atomically: a reader (or a crash) sees the old file or the new one, never half of one. */
export function saveStateFile(path: string, state: VenueState): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(state, null, 2)}\n`, { encoding: 'utf8', flush: true });
  renameSync(temp, path);
}
