import type { ToolReply } from './tool-reply.ts';

/** The `_meta` key a caller puts on tools/call to make a write safe to retry. */
export const IDEMPOTENCY_META_KEY = 'toolgate/idempotency-key';
/** The result `_meta` key marking an answer replayed from an earlier execution. */
export const REPLAY_META_KEY = 'toolgate/idempotent-replay';
/** Oldest keys are forgotten beyond this many, so the state file stays bounded. */
export const DEFAULT_MAX_IDEMPOTENCY_KEYS = 10_000;

export interface IdempotencyRecord {
  key: string;
  tool: string;
  reply: ToolReply;
  at: string;
}

export interface IdempotencyStoreOptions {
  maxKeys?: number;
  records?: readonly IdempotencyRecord[];
}

/** Reads the idempotency key from a request's `_meta`, ignoring anything that is not a non-empty string. */
export function idempotencyKeyOf(meta: Record<string, unknown> | undefined): string | undefined {
  const key = meta?.[IDEMPOTENCY_META_KEY];
  return typeof key === 'string' && key !== '' ? key : undefined;
}

/**
 * Remembers the first answer given under each key. In-flight calls are
 * tracked too: a retry that arrives while the first call is still running
 * (a client timed out and tried again) waits for it instead of executing twice.
 */
export class IdempotencyStore {
  private readonly maxKeys: number;
  // Map iteration order is insertion order: the first entry is the oldest.
  private readonly records = new Map<string, IdempotencyRecord>();
  private readonly inFlight = new Map<string, { tool: string; reply: Promise<ToolReply> }>();

  constructor(options: IdempotencyStoreOptions = {}) {
    this.maxKeys = options.maxKeys ?? DEFAULT_MAX_IDEMPOTENCY_KEYS;
    for (const record of options.records ?? []) this.remember(record);
  }

  /** The earlier (or still running) call under `key`, if any. */
  find(key: string): { tool: string; reply: Promise<ToolReply> } | undefined {
    const record = this.records.get(key);
    if (record !== undefined) return { tool: record.tool, reply: Promise.resolve(structuredClone(record.reply)) };
    return this.inFlight.get(key);
  }

  /** Marks a call under `key` as running until `reply` settles. */
  begin(args: { key: string; tool: string; reply: Promise<ToolReply> }): void {
    const { key, tool, reply } = args;
    this.inFlight.set(key, { tool, reply });
    const done = () => {
      if (this.inFlight.get(key)?.reply === reply) this.inFlight.delete(key);
    };
    // A call that threw never ran its business logic and is not remembered: a retry may run it.
    reply.then(done, done);
  }

  /** Stores the answer of an execution; call it before saving the state so the key is saved with it. */
  remember(record: IdempotencyRecord): void {
    this.records.delete(record.key);
    this.records.set(record.key, record);
    while (this.records.size > this.maxKeys) {
      const oldest = this.records.keys().next();
      if (oldest.done === true) break;
      this.records.delete(oldest.value);
    }
  }

  snapshot(): IdempotencyRecord[] {
    return structuredClone([...this.records.values()]);
  }

  get size(): number {
    return this.records.size;
  }
}
