// The benchmark talks to nothing but this machine. Telemetry and tracing are
// switched off by their own settings (set here before any framework loads);
// as a guard, should a default change in a later version, every TCP
// connection to a host that is not loopback fails at once, naming the host.
import { Socket } from 'node:net';
import { isLoopbackHost } from './loopback-host.ts';

Object.assign(process.env, {
  MASTRA_TELEMETRY_DISABLED: '1',
  OPENAI_AGENTS_DISABLE_TRACING: '1',
  LANGSMITH_TRACING: 'false',
  LANGCHAIN_TRACING_V2: 'false',
});

/** Connections refused, by host: reported by the child when not empty. */
export const refusedHosts = new Set<string>();

type Connect = (this: Socket, ...args: unknown[]) => Socket;
const connect = Socket.prototype.connect as unknown as Connect;

function hostOf(args: unknown[]): string | undefined {
  const first = args[0];
  if (Array.isArray(first)) return hostOf(first as unknown[]);
  if (typeof first === 'object' && first !== null) {
    const options = first as { host?: unknown; path?: unknown };
    if (typeof options.path === 'string') return undefined;
    return typeof options.host === 'string' ? options.host : 'localhost';
  }
  if (typeof first === 'string' && Number.isNaN(Number(first))) return undefined;
  return typeof args[1] === 'string' ? args[1] : 'localhost';
}

(Socket.prototype as unknown as { connect: Connect }).connect = function guardedConnect(
  this: Socket,
  ...args: unknown[]
): Socket {
  const host = hostOf(args);
  if (host !== undefined && !isLoopbackHost(host)) {
    refusedHosts.add(host);
    process.nextTick(() =>
      this.destroy(new Error(`the benchmark connects to nothing outside this machine (refused: ${host})`)),
    );
    return this;
  }
  return connect.apply(this, args);
};
