// The toolgate.yaml the process-level tests share: the mock model, the power-exchange
// example over HTTP, placeOrder's approval rule and the `server:` settings of the test.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
  const server = Object.entries(config.server).flatMap(([key, value]) => (value === undefined ? [] : [`  ${key}: ${value}\n`]));
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
