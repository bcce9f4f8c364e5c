/** Why an MCP server could not be started or reached. */
export type StartFailure =
  | 'command_not_found'
  | 'not_executable'
  | 'exited'
  | 'refused'
  | 'host_not_found'
  | 'network'
  | 'http_status'
  | 'auth'
  | 'timeout'
  | 'protocol'
  | 'other';

export interface StartErrorInput {
  error: unknown;
  /** The command that was spawned (stdio), for "not found" messages. */
  command?: string;
  /** The server's stderr so far (stdio). */
  stderr: readonly string[];
  /** Errors the transport reported while connecting (e.g. a stdout line that is not JSON-RPC). */
  transportErrors?: readonly unknown[];
  timeoutMs: number;
}

const MAX_CAUSE_CHARS = 300;

/**
 * The cause of a failed start in one line: what the server printed that
 * matters (not the tail of a stack trace), the network error by its code and
 * address, the HTTP status and body, an authentication failure by name.
 */
export function describeStartError(input: StartErrorInput): { reason: StartFailure; cause: string } {
  const { error } = input;
  const stderrLine = meaningfulStderrLine(input.stderr);
  const code = errorCode(error);
  if (code === 'ENOENT' && input.command !== undefined) {
    return { reason: 'command_not_found', cause: `command not found: ${input.command} (is it installed and on PATH?)` };
  }
  if (code === 'EACCES' && input.command !== undefined) return { reason: 'not_executable', cause: `permission denied running ${input.command} (is it executable?)` };
  if (isUnauthorized(error)) return { reason: 'auth', cause: 'authentication failed (HTTP 401): the server refused the credentials; check the headers (e.g. Authorization) of this server in your config' };
  const http = httpFailure(error);
  if (http !== undefined) {
    if (http.status === 401 || http.status === 403) {
      const what = http.status === 401 ? 'authentication failed' : 'access denied';
      return { reason: 'auth', cause: `${what} (HTTP ${http.status}${bodyPart(http.body)}): check the headers (e.g. Authorization) of this server in your config` };
    }
    return { reason: 'http_status', cause: `the server answered HTTP ${http.status}${http.statusText === '' ? '' : ` ${http.statusText}`}${bodyPart(http.body)}` };
  }
  const network = networkFailure(error);
  if (network !== undefined) return network;
  const garbled = (input.transportErrors ?? []).find((e) => e instanceof Error && /JSON|parse|Unexpected token|Invalid/i.test(e.message));
  if (garbled instanceof Error && input.command !== undefined) {
    return { reason: 'protocol', cause: 'the server wrote a line on its stdout that is not an MCP JSON-RPC message and never completed the handshake; an MCP server over stdio must write only protocol messages there and log to stderr' };
  }
  const message = clean(
    [...chain(error)]
      .map((e) => (e instanceof Error ? e.message : String(e)))
      .filter((m, i, all) => m !== '' && all.indexOf(m) === i)
      .join(': '),
  );
  if (/timed? ?out|timeout/i.test(message)) {
    const why = stderrLine === undefined ? (input.command === undefined ? '' : ' (is it an MCP server over stdio? one that waits for other input never answers)') : ` (stderr: ${stderrLine})`;
    return { reason: 'timeout', cause: `did not answer the MCP handshake within ${input.timeoutMs} ms${why}` };
  }
  if (/connection closed|closed/i.test(message)) {
    return { reason: 'exited', cause: stderrLine === undefined ? 'the server exited (or closed its stdout) before answering the MCP handshake' : `the server exited before answering: ${stderrLine}` };
  }
  if (/JSON|parse|Unexpected token/i.test(message)) return { reason: 'protocol', cause: `the server did not speak MCP JSON-RPC: ${message}` };
  return { reason: 'other', cause: stderrLine === undefined ? message : `${message} (stderr: ${stderrLine})` };
}

// Lines that are never the cause: stack frames, source excerpts, Node's footer and error properties.
const NOISE = [
  /^\s*at\s/,
  /^\s*File ".*", line \d+/,
  /^\s*\^+\s*$/,
  /^\s*~+\s*$/,
  /^node:internal\//,
  /^\S+\.(?:m?[jt]s|cjs|py):\d+(?::\d+)?$/,
  /^\s*throw\s/,
  /^Node\.js v\d/,
  /^\s*[{}[\]],?\s*$/,
  /^\s*(?:code|requireStack|errno|syscall|path|url|cause)\s*:/,
  /^\(node:\d+\)\s/,
  /^\(Use `node --trace-/,
  /^Traceback \(most recent call last\):/,
  /^\s*goroutine \d+/,
  /^\s*\S+\.go:\d+/,
];
const HEADLINE = /^(?:[A-Z][\w.]*(?:Error|Exception)\b|Error\b|panic:|fatal:|error:|FATAL|ERROR)/i;

/**
 * The line of a server's stderr that says what went wrong: an error headline
 * (`Error: Cannot find module …`, `ModuleNotFoundError: …`, `panic: …`) —
 * the last one, as Python prints it after the traceback — else the first line
 * that is not noise.
 */
export function meaningfulStderrLine(lines: readonly string[]): string | undefined {
  const useful = lines.map((l) => l.trimEnd()).filter((l) => l.trim() !== '' && !NOISE.some((re) => re.test(l)));
  const headlines = useful.filter((l) => HEADLINE.test(l.trim()));
  const line = headlines.at(-1) ?? useful[0];
  return line === undefined ? undefined : clean(line.trim());
}

function bodyPart(body: string | undefined): string {
  const text = body === undefined ? '' : clean(body);
  return text === '' ? '' : `: ${text}`;
}

/** One line, no control characters, bounded: the text comes from an untrusted server. */
function clean(text: string): string {
  // eslint-disable-next-line no-control-regex -- stripping control characters is the point
  const one = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return one.length > MAX_CAUSE_CHARS ? `${one.slice(0, MAX_CAUSE_CHARS)}…` : one;
}

function* chain(error: unknown): Generator<unknown> {
  let e: unknown = error;
  for (let depth = 0; e !== undefined && e !== null && depth < 6; depth++) {
    yield e;
    e = (e as { cause?: unknown }).cause;
  }
}

function errorCode(error: unknown): string | undefined {
  for (const e of chain(error)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

function isUnauthorized(error: unknown): boolean {
  for (const e of chain(error)) if (e instanceof Error && (e.name === 'UnauthorizedError' || e.constructor.name === 'UnauthorizedError')) return true;
  return false;
}

function httpFailure(error: unknown): { status: number; statusText: string; body: string | undefined } | undefined {
  for (const e of chain(error)) {
    const data = (e as { data?: unknown }).data;
    if (typeof data === 'object' && data !== null && typeof (data as { status?: unknown }).status === 'number') {
      const d = data as { status: number; statusText?: unknown; text?: unknown };
      return { status: d.status, statusText: typeof d.statusText === 'string' ? d.statusText : '', body: typeof d.text === 'string' ? d.text : undefined };
    }
    const match = e instanceof Error ? /\(HTTP (\d{3})\): ?(.*)$/s.exec(e.message) : null;
    if (match !== null) return { status: Number(match[1]), statusText: '', body: match[2] };
  }
  return undefined;
}

const NETWORK_CODES: Record<string, { reason: StartFailure; what: string }> = {
  ECONNREFUSED: { reason: 'refused', what: 'connection refused: nothing listens there' },
  ENOTFOUND: { reason: 'host_not_found', what: 'host not found' },
  EAI_AGAIN: { reason: 'host_not_found', what: 'host name could not be resolved (DNS)' },
  ECONNRESET: { reason: 'network', what: 'the connection was reset' },
  ETIMEDOUT: { reason: 'timeout', what: 'the connection timed out' },
  EHOSTUNREACH: { reason: 'network', what: 'host unreachable' },
  ENETUNREACH: { reason: 'network', what: 'network unreachable' },
  UND_ERR_CONNECT_TIMEOUT: { reason: 'timeout', what: 'the connection timed out' },
  CERT_HAS_EXPIRED: { reason: 'network', what: 'the TLS certificate has expired' },
  DEPTH_ZERO_SELF_SIGNED_CERT: { reason: 'network', what: 'the TLS certificate is self-signed' },
};

function networkFailure(error: unknown): { reason: StartFailure; cause: string } | undefined {
  for (const e of chain(error)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string' || !(code in NETWORK_CODES)) continue;
    const known = NETWORK_CODES[code];
    if (known === undefined) continue;
    const { address, port, hostname } = e as { address?: unknown; port?: unknown; hostname?: unknown };
    const where = typeof address === 'string' ? `${address}${typeof port === 'number' ? `:${port}` : ''}` : typeof hostname === 'string' ? hostname : '';
    return { reason: known.reason, cause: `${code}${where === '' ? '' : ` ${where}`} (${known.what})` };
  }
  return undefined;
}
