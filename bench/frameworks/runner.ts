// What every runner file exports: `createRunner`, which does its imports'
// work and setup (clients, tools, stores, servers) and returns a Runner that
// does one run of the workload at a time (several at once when concurrent).
import type { ToolShape } from './workload.ts';

export interface RunnerOptions {
  /** The mock model's base URL, ending in /v1. */
  url: string;
  /** The tools offered: lookup, or lookup plus 9 never called. */
  tools: ToolShape[];
  stream: boolean;
}

export interface Runner {
  /**
   * One run of the workload from the prompt to the final answer, which it
   * returns. When streaming, `onText` is called for each piece of answer text
   * the runner observes (the first one is what first-token latency measures),
   * with the performance.now() time it was observed when that was earlier (in
   * another process).
   */
  run(onText: (at?: number) => void): Promise<string>;
  close(): Promise<void>;
}

export type CreateRunner = (options: RunnerOptions) => Promise<Runner>;

/** The model name every runner sends; the mock ignores it. */
export const MODEL_NAME = 'mock-model';
export const API_KEY = 'bench-key';
/**
 * The user agent of the loop written on undici (runners/baseline-undici.ts): child.ts counts the undici requests that
 * name it, or toolgate, as model steps (Node's fetch announces its own requests on the same channel).
 */
export const UNDICI_LOOP_USER_AGENT = 'toolgate-bench-undici-loop';
