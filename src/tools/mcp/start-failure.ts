import { ToolgateError } from '../../core/index.ts';
import type { McpServerConfig } from './mcp-tool-source.ts';
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
    ...('command' in server ? { command: server.command, ...(server.cwd === undefined ? {} : { cwd: server.cwd }) } : {}),
    ...(exit === undefined ? {} : { exit }),
    ...(stdoutNoise === undefined ? {} : { stdoutNoise }),
  });
  // fetch repeats a URL with its credentials, and a server may echo the headers it was sent.
  const cause = secretsOf(server).reduce((text, secret) => text.split(secret).join('***'), described.cause);
  return new ToolgateError('tool_unavailable', `could not start MCP server "${input.name}" (${shownEndpoint(server)}): ${cause}. ${described.hint}.`, {
    cause: input.error,
    details: { server: input.name, reason: described.reason, cause },
  });
}

const SENSITIVE_QUERY_KEY = /key|token|secret|auth|pass|sig/i;
/** Shorter values are too likely to be ordinary words to be blanked out. */
const MIN_SECRET_CHARS = 6;

/** The endpoint for messages: a password or a token in a URL stays out of them. */
export function shownEndpoint(server: McpServerConfig): string {
  if (!('url' in server)) return [server.command, ...(server.args ?? [])].join(' ');
  if (!URL.canParse(server.url)) return server.url;
  const url = new URL(server.url);
  if (url.password !== '') url.password = '***';
  for (const key of [...url.searchParams.keys()]) if (SENSITIVE_QUERY_KEY.test(key)) url.searchParams.set(key, '***');
  return url.href;
}

/** Header values (and their parts: the token of "Bearer <token>"), a URL's password and token parameters. */
function secretsOf(server: McpServerConfig): string[] {
  if (!('url' in server)) return [];
  const values = Object.values(server.headers ?? {}).flatMap((value) => [value, ...value.split(/\s+/)]);
  if (URL.canParse(server.url)) {
    const url = new URL(server.url);
    values.push(url.password, decodeURIComponent(url.password));
    for (const [key, value] of url.searchParams) if (SENSITIVE_QUERY_KEY.test(key)) values.push(value, encodeURIComponent(value));
  }
  // Longest first, so a whole value is blanked before its parts.
  return [...new Set(values.filter((v) => v.length >= MIN_SECRET_CHARS))].sort((a, b) => b.length - a.length);
}
