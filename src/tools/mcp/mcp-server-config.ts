/** How to reach one MCP server: a command to spawn (stdio) or a Streamable HTTP URL. */
export type McpServerConfig =
  | {
      command: string;
      args?: string[] | undefined;
      /** Set for the server, over what it receives anyway (see serverEnvironment). */
      env?: Record<string, string> | undefined;
      /** Pass toolgate's whole environment, not only the SDK's defaults and the network variables. */
      inheritEnv?: boolean | undefined;
      cwd?: string | undefined;
    }
  | { url: string; headers?: Record<string, string> | undefined };

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

/**
 * What must not appear in a message about this server: header values (and
 * their parts: the token of "Bearer <token>"), a URL's password and token
 * parameters. Longest first, so a whole value is blanked before its parts.
 */
export function endpointSecrets(server: McpServerConfig): string[] {
  if (!('url' in server)) return [];
  const values = Object.values(server.headers ?? {}).flatMap((value) => [value, ...value.split(/\s+/)]);
  if (URL.canParse(server.url)) {
    const url = new URL(server.url);
    values.push(url.password, decodeURIComponent(url.password));
    for (const [key, value] of url.searchParams)
      if (SENSITIVE_QUERY_KEY.test(key)) values.push(value, encodeURIComponent(value));
  }
  return [...new Set(values.filter((v) => v.length >= MIN_SECRET_CHARS))].sort((a, b) => b.length - a.length);
}
