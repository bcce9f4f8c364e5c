import type { Logger } from 'pino';
import { describeError, type Run, type RunEvent, type RunStore } from '../core/index.ts';

/** What the curl lines print instead of a key: the shell fills it in, the log never holds one. */
export const API_KEY_PLACEHOLDER = '$TOOLGATE_API_KEY';

/**
 * `-H "authorization: Bearer $TOOLGATE_API_KEY"` when the server wants a key (double quotes, so the shell expands it).
 */
export function authHeader(hasApiKeys: boolean): string {
  return hasApiKeys ? ` -H "authorization: Bearer ${API_KEY_PLACEHOLDER}"` : '';
}

/** The request that approves a waiting call, ready to paste. */
export function approvalCurl(options: {
  baseUrl: string;
  runId: string;
  toolCallId: string;
  hasApiKeys: boolean;
}): string {
  const body = JSON.stringify({ type: 'approval', toolCallId: options.toolCallId, decision: 'approve' });
  return (
    `curl -X POST ${options.baseUrl}/v1/runs/${options.runId}/input -H ` +
    `'content-type: application/json'${authHeader(options.hasApiKeys)} -d '${body}'`
  );
}

export interface RunLogOptions {
  logger: Logger;
  store: Pick<RunStore, 'getRun'>;
  /** The server's URL; known once it listens, before any run can start. */
  baseUrl: () => string;
  hasApiKeys: boolean;
  /**
   * Prints each approval's curl line as it is, where the log cannot: JSON log
   * lines (stderr to a file or a pipe) escape the command's quotes, so the
   * line in the log pastes only once decoded (`jq -r .curl`).
   */
  echoCurl?: ((line: string) => void) | undefined;
}

/**
 * Turns run events into log lines: one when a run starts, one when it ends
 * (status, steps, duration), and one when it waits for a person, with the
 * curl line that approves it. Every event's type at debug level. Ids, counts
 * and codes only: inputs, arguments and outputs stay in the run's log.
 */
export function createRunLog(options: RunLogOptions): (events: readonly RunEvent[]) => void {
  const { logger } = options;
  const withRun = (runId: string, write: (run: Run) => void) => {
    options.store.getRun(runId).then(
      (run) => {
        if (run !== undefined) write(run);
      },
      (error: unknown) => logger.warn({ runId, error: describeError(error) }, 'run could not be read for the log'),
    );
  };
  return (events) => {
    for (const event of events) {
      logger.debug({ runId: event.runId, event: event.type, seq: event.id }, 'run event');
      switch (event.type) {
        case 'run_started':
          withRun(event.runId, (run) =>
            logger.info(
              {
                runId: run.id,
                tenantId: run.tenantId,
                model: event.data.model,
                ...(event.data.dryRun === true ? { dryRun: true } : {}),
                ...(event.data.unavailable === undefined
                  ? {}
                  : { unavailableServers: event.data.unavailable.map((u) => u.server) }),
              },
              'run started',
            ),
          );
          break;
        case 'approval_required': {
          const { toolCallId, name, reason } = event.data;
          const curl = approvalCurl({
            baseUrl: options.baseUrl(),
            runId: event.runId,
            toolCallId,
            hasApiKeys: options.hasApiKeys,
          });
          logger.info({ runId: event.runId, toolCallId, tool: name, reason, curl }, 'run waits for approval');
          options.echoCurl?.(`approve ${name} (${event.runId}): ${curl}\n`);
          break;
        }
        case 'run_completed':
        case 'run_failed':
        case 'run_cancelled': {
          const ended = event.time;
          const error = event.type === 'run_failed' ? { errorCode: event.data.error.code } : {};
          withRun(event.runId, (run) => {
            const durationMs = Math.max(0, Date.parse(ended) - Date.parse(run.createdAt));
            const line = {
              runId: run.id,
              tenantId: run.tenantId,
              status: run.status,
              steps: run.steps,
              ...error,
              durationMs,
            };
            if (event.type === 'run_failed') logger.warn(line, 'run failed');
            else logger.info(line, event.type === 'run_completed' ? 'run completed' : 'run cancelled');
          });
          break;
        }
        default:
          break;
      }
    }
  };
}
