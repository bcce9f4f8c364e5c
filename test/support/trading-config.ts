// The toolgate.yaml the process-level tests share: the mock model, the power-exchange
// example over HTTP, placeOrder's approval rule and the `server:` settings of the test.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedRequest } from './mock-openai-server.ts';

/**
 * A distinct limit price per run, in whole cents, far below the seeded asks: each order rests, and is told apart by its
 * price.
 */
export const priceOf = (n: number): number => Math.round((10 + n / 10) * 100) / 100;

/** The run a model request belongs to, by its prompt "trade <n>". */
export function runNumberOf(request: RecordedRequest): number | undefined {
  const messages = (request.body?.messages ?? []) as { role: string; content: unknown }[];
  const prompt = messages.find((m) => m.role === 'user')?.content;
  const match = typeof prompt === 'string' ? /^trade (\d+)$/.exec(prompt) : null;
  return match === null ? undefined : Number(match[1]);
}

export interface TradingConfig {
  /** The mock OpenAI-compatible server. */
  modelUrl: string;
  /** The power-exchange server's MCP URL (or a proxy in front of it). */
  exchangeUrl: string;
  /** placeOrder's approval rule. */
  approval: 'never' | 'required';
  /** Keys of `server:`, written as they are (undefined ones left out). */
  server: Record<string, string | number | undefined>;
}

/** Writes `<dir>/toolgate.yaml`. */
export function writeTradingConfig(dir: string, config: TradingConfig): void {
  const server = Object.entries(config.server).flatMap(([key, value]) =>
    value === undefined ? [] : [`  ${key}: ${value}\n`],
  );
  writeFileSync(
    join(dir, 'toolgate.yaml'),
    `model: openai:mock
providers:
  openai: { baseUrl: "${config.modelUrl}", apiKey: test, maxRetries: 0 }
servers:
  power-exchange: { url: "${config.exchangeUrl}" }
tools:
  "power-exchange/placeOrder": { approval: ${config.approval} }
server:
${server.join('')}`,
  );
}
