import type { Client, StandardSchemaV1 } from '@modelcontextprotocol/client';
import { isJsonObject, type JsonObject } from '../../core/index.ts';
import { abortableSleep } from '../../core/abortable-sleep.ts';
import type { McpClientModule } from './mcp-sdk.ts';

/** How often a task is polled when its server suggests nothing. */
export const DEFAULT_TASK_POLL_MS = 1000;
/** Bounds on a server's suggested poll interval: a hostile or careless server neither floods nor stalls the poll. */
const MIN_TASK_POLL_MS = 100;
const MAX_TASK_POLL_MS = 5000;
const MAX_TASK_ID = 256;
const MAX_STATUS_MESSAGE = 1000;

export interface TaskCallOptions {
  sdk: McpClientModule;
  name: string;
  arguments: JsonObject;
  meta?: JsonObject | undefined;
  /** The whole call's budget, task creation to result. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Told of each new status message as progress (MCP `notifications/progress` params without the token). */
  onProgress?: ((progress: JsonObject) => void) | undefined;
}

/** Any JSON object: the fields read are checked one by one below (the SDK's typed surface has no task methods). */
const ANY_OBJECT: StandardSchemaV1<unknown, JsonObject> = {
  '~standard': {
    version: 1,
    vendor: 'toolgate',
    validate: (value: unknown) =>
      isJsonObject(value) ? { value } : { issues: [{ message: 'the result is not a JSON object' }] },
  },
};

/**
 * Calls a tool that runs as an MCP task (2025-11-25 tasks, SEP-1686): `tools/call` with `task`, then `tasks/get`
 * until the task ends (at the server's suggested interval, within bounds), then `tasks/result`. Returns the tool's
 * plain result, as a direct call would. Past `timeoutMs` it throws the SDK's RequestTimeout error; when `signal`
 * aborts it throws too; in both cases the upstream task is cancelled (`tasks/cancel`, best effort).
 */
export async function callAsTask(client: Client, options: TaskCallOptions): Promise<JsonObject> {
  const { sdk, signal } = options;
  const deadline = Date.now() + options.timeoutMs;
  const left = (): number => Math.max(1, deadline - Date.now());
  const timedOut = (): Error =>
    new sdk.SdkError(sdk.SdkErrorCode.RequestTimeout, `the task did not end within ${options.timeoutMs} ms`);
  const request = (method: string, params: JsonObject): Promise<JsonObject> =>
    client.request({ method, params }, ANY_OBJECT, {
      timeout: left(),
      ...(signal === undefined ? {} : { signal }),
    });
  const created = await request('tools/call', {
    name: options.name,
    arguments: options.arguments,
    task: { ttl: options.timeoutMs },
    ...(options.meta === undefined ? {} : { _meta: options.meta }),
  });
  let task = taskOf(created, 'tools/call');
  const taskId = task.taskId;
  let progress = 0;
  let lastMessage: string | undefined;
  try {
    // input_required: the server's questions come with tasks/result (the connection's own handlers answer them).
    while (!isTerminal(task.status) && task.status !== 'input_required') {
      if (task.statusMessage !== undefined && task.statusMessage !== lastMessage) {
        lastMessage = task.statusMessage;
        options.onProgress?.({ progress: ++progress, message: lastMessage });
      }
      const wait = Math.min(task.pollInterval ?? DEFAULT_TASK_POLL_MS, deadline - Date.now());
      if (wait <= 0) throw timedOut();
      await abortableSleep(Math.min(MAX_TASK_POLL_MS, Math.max(MIN_TASK_POLL_MS, wait)), signal);
      if (Date.now() >= deadline) throw timedOut();
      task = taskOf({ task: await request('tasks/get', { taskId }) }, 'tasks/get');
    }
    if (task.status === 'cancelled')
      return { isError: true, content: [{ type: 'text', text: `the server cancelled the task${said(task)}` }] };
    // `failed` too: tasks/result (which waits for the end) then gives the tool's own error (a result with isError,
    // or a JSON-RPC error).
    return await request('tasks/result', { taskId });
  } catch (error) {
    if (!isTerminal(task.status)) void cancelTask(client, taskId);
    throw error;
  }
}

interface TaskState {
  taskId: string;
  status: string;
  statusMessage?: string;
  pollInterval?: number;
}

function taskOf(result: JsonObject, method: string): TaskState {
  const task = result['task'];
  const bad = (what: string): Error =>
    new Error(`the server's answer to ${method} is not a task (${what}); it must offer tasks as MCP 2025-11-25 says`);
  if (!isJsonObject(task)) throw bad('no "task" object');
  const { taskId, status, statusMessage, pollInterval } = task;
  if (typeof taskId !== 'string' || taskId === '' || taskId.length > MAX_TASK_ID) throw bad('a bad "taskId"');
  if (typeof status !== 'string') throw bad('no "status"');
  const state: TaskState = { taskId, status };
  if (typeof statusMessage === 'string') state.statusMessage = statusMessage.slice(0, MAX_STATUS_MESSAGE);
  if (typeof pollInterval === 'number' && Number.isFinite(pollInterval)) state.pollInterval = pollInterval;
  return state;
}

function isTerminal(status: string): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

function said(task: TaskState): string {
  return task.statusMessage === undefined ? '' : `: ${task.statusMessage}`;
}

async function cancelTask(client: Client, taskId: string): Promise<void> {
  await client.request({ method: 'tasks/cancel', params: { taskId } }, ANY_OBJECT, { timeout: 5000 }).catch(() => {
    // Best effort: the task ends at its ttl anyway.
  });
}
