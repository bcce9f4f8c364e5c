import { ZERO_USAGE, type NewRun, type Run } from '../core/index.ts';

/**
 * The run a store creates from `init`: queued unless told otherwise, no usage,
 * steps or events yet, and only the optional fields the caller gave. Its
 * objects are the caller's: each store copies them the way it keeps them.
 */
export function createdRun(init: NewRun, at: { id: string; now: string }): Run {
  return {
    id: at.id,
    status: init.status ?? 'queued',
    input: init.input,
    model: init.model,
    createdAt: at.now,
    updatedAt: at.now,
    usage: { ...ZERO_USAGE },
    steps: 0,
    lastEventId: 0,
    ...(init.tenantId === undefined ? {} : { tenantId: init.tenantId }),
    ...(init.userId === undefined ? {} : { userId: init.userId }),
    ...(init.threadId === undefined ? {} : { threadId: init.threadId }),
    ...(init.metadata === undefined ? {} : { metadata: init.metadata }),
    ...(init.context === undefined ? {} : { context: init.context }),
    ...(init.dryRun === undefined ? {} : { dryRun: init.dryRun }),
    ...(init.settings === undefined ? {} : { settings: init.settings }),
  };
}
