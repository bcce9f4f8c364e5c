import { ToolgateError } from '../../core/index.ts';
import { endpointSecrets, shownEndpoint, type McpServerConfig } from './mcp-server-config.ts';
import { describeStartError } from './start-error.ts';
import type { StdioWatch } from './stdio-watch.ts';

export interface StartFailureInput {
  /** The server's configured name. */
  name: string;
  server: McpServerConfig;
  /** What `connect` threw. */
  error: unknown;
  timeoutMs: number;
  /** The stdio process's stderr, stdout noise and exit. */
  watch?: StdioWatch | undefined;
  transportErrors?: readonly unknown[];
}

/**
 * The error a failed start becomes:
 * `could not start MCP server "<name>" (<endpoint>): <cause>. <hint>.`
 * Its details carry `reason` and the bare `cause`, so a health report can
 * show the cause without the prefix.
 */
export function startFailure(input: StartFailureInput): ToolgateError {
  const { server, watch } = input;
  const exit = watch?.exit;
  const stdoutNoise = watch?.stdoutNoise;
  const described = describeStartError({
    error: input.error,
    server: input.name,
    stderr: watch?.stderr ?? [],
    timeoutMs: input.timeoutMs,
    ...(input.transportErrors === undefined ? {} : { transportErrors: input.transportErrors }),
    ...('command' in server
      ? { command: server.command, ...(server.cwd === undefined ? {} : { cwd: server.cwd }) }
      : {}),
    ...(exit === undefined ? {} : { exit }),
    ...(stdoutNoise === undefined ? {} : { stdoutNoise }),
  });
  // fetch repeats a URL with its credentials, and a server may echo the headers it was sent.
  const cause = endpointSecrets(server).reduce((text, secret) => text.split(secret).join('***'), described.cause);
  return new ToolgateError(
    'tool_unavailable',
    `could not start MCP server "${input.name}" (${shownEndpoint(server)}): ${cause}. ${described.hint}.`,
    {
      cause: input.error,
      details: { server: input.name, reason: described.reason, cause },
    },
  );
}
