import type { Message, Run, RunStore } from '../../core/index.ts';

/**
 * The thread messages a run started with, as well as they can be told from the thread now: a thread keeps the
 * messages of every completed run, each beginning with its input. The history is what comes before the latest
 * occurrence of the run's input that leaves room for the run's own messages (`ownMessages`, at least the input);
 * none when the run has no thread or the store does not have it.
 */
export async function threadHistoryOf(options: {
  run: Run;
  store: RunStore;
  /** How many messages the run added to its thread (1 when unknown). */
  ownMessages?: number;
}): Promise<Message[]> {
  const { run, store } = options;
  if (run.threadId === undefined) return [];
  const thread = await store.getThread(run.threadId, run.tenantId).catch(() => undefined);
  if (thread === undefined) return [];
  const messages = thread.messages;
  const own = Math.max(1, options.ownMessages ?? 1);
  for (let i = messages.length - own; i >= 0; i--) {
    const message = messages[i];
    if (message?.role === 'user' && message.content === run.input) return messages.slice(0, i);
  }
  // The run is not in its thread (it did not complete): the whole thread came before it.
  return [...messages];
}
