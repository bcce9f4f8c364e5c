// Messages between an HTTP runner and its client process (http-client.ts).

export interface ClientRequest {
  id: number;
  /** The server's base URL. */
  url: string;
  input: string;
  /** `runs`: POST /v1/runs?stream=true and its SSE; `chat`: POST /v1/chat/completions (streamed when `stream`). */
  protocol: 'runs' | 'chat';
  stream: boolean;
}

export type ClientReply =
  | { type: 'ready' }
  /** The first answer text the client saw: process.hrtime.bigint() then, as a decimal string. */
  | { type: 'text'; id: number; at: string }
  | { type: 'done'; id: number; output: string }
  | { type: 'failed'; id: number; error: string };
