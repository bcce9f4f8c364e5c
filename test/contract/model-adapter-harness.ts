// Harnesses for the ModelAdapter contract: an HTTP adapter against a replay
// server serving its provider's recorded answers, or the scripted model.
import { readFileSync } from 'node:fs';
import type { ModelAdapter } from '../../src/core/index.ts';
import { startReplayServer, type StagedAnswer } from '../support/replay-server.ts';
import { CONTRACT_CASES, type ContractCase, type ContractHarness } from './model-adapter.contract.ts';

export interface HttpHarnessOptions {
  name: string;
  /** Folder under test/fixtures/contract/. */
  fixtures: string;
  /** How this provider streams: SSE (`.sse`, text/event-stream) or NDJSON (`.ndjson`, application/x-ndjson). */
  stream: 'sse' | 'ndjson';
  /** The status this provider sends with its error-5xx body (503, 529, 500…). */
  status5xx: number;
  /** The adapter at `url` (the replay server's root), with no retry delay to speak of. */
  create: (input: { url: string; maxRetries: number }) => ModelAdapter;
  expected: ContractHarness['expected'];
}

const STREAM_TYPES = { sse: 'text/event-stream; charset=utf-8', ndjson: 'application/x-ndjson' } as const;
const JSON_TYPE = 'application/json';

export async function httpHarness(options: HttpHarnessOptions): Promise<ContractHarness> {
  const server = await startReplayServer();
  const folder = new URL(`../fixtures/contract/${options.fixtures}/`, import.meta.url);
  const read = (file: string): string => readFileSync(new URL(file, folder), 'utf8');
  const streamFile = (name: string): string => `${name}.${options.stream}`;

  const answerFor = (name: ContractCase): StagedAnswer => {
    const stream = { 'content-type': STREAM_TYPES[options.stream], 'cache-control': 'no-cache' };
    switch (name) {
      case 'text':
      case 'tool-call':
        return { body: read(`${name}.json`), headers: { 'content-type': JSON_TYPE } };
      case 'stream-text':
      case 'stream-parallel-tool-calls':
      case 'stream-broken-arguments':
      case 'stream-reasoning':
      case 'stream-error-midstream':
        // Small writes, so the adapter meets events and lines split across reads.
        return { body: read(streamFile(name)), headers: stream, chunkSize: 7 };
      case 'stream-text-late-end':
        return { body: read(streamFile('stream-text')), headers: stream, chunkSize: 7, endDelayMs: 40 };
      case 'stream-text-never-ends': {
        const body = read(streamFile('stream-text'));
        return { body, headers: stream, chunkSize: 7, holdAfterBytes: new TextEncoder().encode(body).byteLength };
      }
      case 'stalled-stream': {
        const body = read(streamFile('stream-text'));
        return { body, headers: stream, holdAfterBytes: Math.floor(body.length / 2) };
      }
      case 'error-401':
        return { status: 401, body: read('error-401.json'), headers: { 'content-type': JSON_TYPE } };
      case 'error-404-model':
        return { status: 404, body: read('error-404-model.json'), headers: { 'content-type': JSON_TYPE } };
      case 'error-429':
        return {
          status: 429,
          body: read('error-429.json'),
          headers: { 'content-type': JSON_TYPE, 'retry-after': '1' },
        };
      case 'error-5xx':
        return { status: options.status5xx, body: read('error-5xx.json'), headers: { 'content-type': JSON_TYPE } };
    }
  };
  // Every fixture is read once up front: a missing one fails the suite at once, by name.
  for (const name of CONTRACT_CASES) answerFor(name);

  return {
    name: options.name,
    stage: (...names) => server.stage(...names.map(answerFor)),
    adapter: (policy = {}) => options.create({ url: server.url, maxRetries: policy.maxRetries ?? 0 }),
    requests: () => server.requests,
    remaining: () => server.remaining(),
    expected: options.expected,
    close: () => server.close(),
  };
}
