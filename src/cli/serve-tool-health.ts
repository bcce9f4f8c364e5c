import type { Logger } from 'pino';
import type { ToolSourceHealth } from '../core/index.ts';

/**
 * The serve log's lines about tool servers: up (with its tool count), down
 * (with the cause and when it is tried again), back.
 */
export function logToolHealth(logger: Pick<Logger, 'info' | 'warn'>): (health: ToolSourceHealth) => void {
  const wasDown = new Set<string>();
  return (health) => {
    const fields = { server: health.name, state: health.state, tools: health.tools };
    if (health.state === 'up') {
      const back = wasDown.delete(health.name);
      logger.info(fields, `tool server "${health.name}" is ${back ? 'back' : 'up'} (${countTools(health.tools)})`);
    } else if (health.state === 'down') {
      wasDown.add(health.name);
      const retry =
        health.retryAt === undefined ? '' : `; retrying in ${seconds(Date.parse(health.retryAt) - Date.now())}`;
      logger.warn(
        { ...fields, error: health.error, ...(health.retryAt === undefined ? {} : { retryAt: health.retryAt }) },
        `tool server "${health.name}" is down: ` +
          `${health.error ?? 'not reachable'}${retry}; runs go on without its tools`,
      );
    }
  };
}

/** One line for the banner: how many tool servers are up, and which are not. */
export function toolHealthSummary(servers: readonly ToolSourceHealth[]): string | undefined {
  if (servers.length === 0) return undefined;
  const up = servers.filter((s) => s.state === 'up');
  const tools = up.reduce((n, s) => n + s.tools, 0);
  const missing = servers.filter((s) => s.state !== 'up').map((s) => `${s.name} ${s.state}`);
  return (
    `tools: ${up.length} of ${servers.length} server${servers.length === 1 ? '' : 's'} up, ` +
    `${countTools(tools)}${missing.length === 0 ? '' : ` (${missing.join(', ')}: see /readyz)`}`
  );
}

function countTools(n: number): string {
  return `${n} tool${n === 1 ? '' : 's'}`;
}

function seconds(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
}
