import type { Message, Thread } from '../../core/index.ts';
import { isoNow } from '../store-clock.ts';

/** MemoryRunStore's threads: each tenant has its own namespace of thread ids. Returns and keeps copies. */
export class MemoryThreads {
  /** Keyed by threadKey. */
  readonly #threads = new Map<string, Thread>();

  get(threadId: string, tenantId: string | undefined): Thread | undefined {
    const thread = this.#threads.get(threadKey(threadId, tenantId));
    return thread === undefined ? undefined : structuredClone(thread);
  }

  append(threadId: string, messages: readonly Message[], tenantId: string | undefined): void {
    const now = isoNow();
    const key = threadKey(threadId, tenantId);
    const base: Thread = this.#threads.get(key) ?? {
      id: threadId,
      messages: [],
      createdAt: now,
      updatedAt: now,
      ...(tenantId === undefined ? {} : { tenantId }),
    };
    this.#threads.set(key, {
      ...base,
      messages: [...base.messages, ...structuredClone([...messages])],
      updatedAt: now,
    });
  }
}

/** '' stands for "no tenant", as for idempotency keys; JSON keeps tenant and id from running into each other. */
function threadKey(threadId: string, tenantId: string | undefined): string {
  return JSON.stringify([tenantId ?? '', threadId]);
}
