// Messages between the fan-out bench (fanout-bench.ts) and its server and subscriber processes.

export type ServerCommand =
  | { type: 'create' }
  | { type: 'cpu' }
  | { type: 'append'; runId: string; events: number; gapMs: number; complete: boolean };

export type ServerReply =
  | { type: 'ready'; url: string }
  | { type: 'created'; runId: string }
  /** process.cpuUsage() since start, user + system, µs. */
  | { type: 'cpu'; micros: number }
  | { type: 'appended'; firstId: number; sentAt: number[] }
  | { type: 'failed'; error: string };

/** The monotonic clock, in ms, comparable across the processes of one machine. */
export function sharedNow(): number {
  return performance.timeOrigin + performance.now();
}

export type SubscriberCommand =
  | { type: 'connect'; urls: string[]; count: number }
  /** sentAt[i]: when event firstId + i was appended. */
  | { type: 'collect'; firstId: number; sentAt: number[]; lastId: number; timeoutMs: number };

export type SubscriberReply =
  | { type: 'connected'; connected: number; failed: number }
  | {
      type: 'result';
      /** append → arrival, ms, for every event at every subscriber that got it. */
      latencies: number[];
      violations: number;
      /** Streams that had not reached the last event when collected. */
      incomplete: number;
      streams: number;
    };
