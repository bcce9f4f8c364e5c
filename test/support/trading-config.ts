// The toolgate.yaml the process-level tests share: the mock model, the power-exchange
// example over HTTP, placeOrder's approval rule and the `server:` settings of the test.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedRequest } from './mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER } from './processes.ts';

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

/**
 * The first lines of a toolgate.yaml: the mock model at `modelUrl` and the power-exchange example over stdio,
 * keeping its venue in `stateFile` when given (so a test can count the orders placed).
 */
export function mockTradingYaml(options: { modelUrl: string; stateFile?: string }): string {
  const args = [POWER_EXCHANGE_SERVER, ...(options.stateFile === undefined ? [] : ['--state', options.stateFile])];
  return `model: openai:mock
providers:
  openai: { baseUrl: "${options.modelUrl}", apiKey: test, maxRetries: 0 }
servers:
  power-exchange:
    command: ${JSON.stringify(process.execPath)}
    args: [${args.map((arg) => JSON.stringify(arg)).join(', ')}]
`;
}
