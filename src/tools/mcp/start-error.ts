import { describeError } from '../../core/index.ts';
import { errorChain, errorCodes, errorField } from './error-fields.ts';

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
  /** The server's configured name, for the hint (`servers.<name>.command`). */
  server?: string;
  /** The command that was spawned (stdio); its absence means an HTTP server. */
  command?: string;
  /** The working directory it was spawned in, which a spawn ENOENT may be about. */
  cwd?: string;
  /** The server's stderr so far (stdio). */
  stderr: readonly string[];
  /** The start of the first stdout text that is not JSON-RPC (stdio). */
  stdoutNoise?: string;
  /** How the process ended, if it has (stdio). */
  exit?: { code: number | null; signal: string | null };
  /** Errors the transport reported while connecting (e.g. a stdout message that is not JSON-RPC). */
  transportErrors?: readonly unknown[];
  timeoutMs: number;
}

/** A failed start: why (for programs), the cause in one line and what to do (for people). */
export interface StartError {
  reason: StartFailure;
  cause: string;
  hint: string;
}

const MAX_CAUSE_CHARS = 300;

/**
 * The cause of a failed start in one line: what the server printed that
 * matters (not the tail of a stack trace), how it exited, the network error
 * by its code and address, the HTTP status and body, an authentication
 * failure by name. Never a header value: only the error and server output are read.
 */
export function describeStartError(input: StartErrorInput): StartError {
  const { reason, cause, status } = classify(input);
  return { reason, cause, hint: hintFor(reason, input, status) };
}

function classify(input: StartErrorInput): { reason: StartFailure; cause: string; status?: number } {
  const { error, command } = input;
  const codes = errorCodes(error);
  if (codes.has('ENOENT') && command !== undefined) {
    const where = input.cwd === undefined ? '' : `, or the working directory ${input.cwd} does not exist`;
    return {
      reason: 'command_not_found',
      cause: `command not found: ${command} (is it installed and on PATH?)${where}`,
    };
  }
  if (codes.has('EACCES') && command !== undefined)
    return { reason: 'not_executable', cause: `permission denied running ${command} (is it executable?)` };
  if (isUnauthorized(error))
    return { reason: 'auth', cause: 'authentication failed (HTTP 401): the server did not accept the credentials' };
  const http = httpFailure(error);
  if (http !== undefined) {
    const status = `HTTP ${http.status}${http.statusText === '' ? '' : ` ${http.statusText}`}${bodyPart(http.body)}`;
    if (http.status === 401) return { reason: 'auth', cause: `authentication failed (${status})` };
    if (http.status === 403) return { reason: 'auth', cause: `access denied (${status})` };
    return { reason: 'http_status', cause: `the server answered ${status}`, status: http.status };
  }
  const network = networkFailure(error);
  if (network !== undefined) return network;
  const message = clean(
    [...errorChain(error)]
      .map((e) => describeError(e))
      .filter((m, i, all) => m !== '' && all.indexOf(m) === i)
      .join(': '),
  );
  if (codes.has('CLIENT_HTTP_UNEXPECTED_CONTENT'))
    return { reason: 'protocol', cause: `the server did not answer as an MCP endpoint: ${message}` };
  const stderrLine = meaningfulStderrLine(input.stderr);
  const timedOut = codes.has('REQUEST_TIMEOUT') || /timed? ?out|timeout/i.test(message);
  const closed = codes.has('CONNECTION_CLOSED') || /connection closed|closed/i.test(message);
  const exit = input.exit === undefined ? '' : exitText(input.exit);
  if (input.stdoutNoise !== undefined && (timedOut || (closed && stderrLine === undefined))) {
    const end = exit === '' ? '' : ` and ${exit}`;
    return {
      reason: 'protocol',
      cause: `the server wrote something that is not MCP JSON-RPC on stdout: "${clean(input.stdoutNoise, 100)}"${end}`,
    };
  }
  if (
    command !== undefined &&
    (input.transportErrors ?? []).some(
      (e) => e instanceof Error && /JSON|parse|Unexpected token|Invalid/i.test(e.message),
    )
  ) {
    return {
      reason: 'protocol',
      cause: 'the server wrote a message on stdout that is not MCP JSON-RPC and never completed the handshake',
    };
  }
  if (timedOut) {
    const why =
      stderrLine === undefined
        ? command === undefined
          ? ''
          : ' (is it an MCP server over stdio? one that waits for other input never answers)'
        : ` (stderr: ${stderrLine})`;
    return { reason: 'timeout', cause: `did not answer the MCP handshake within ${input.timeoutMs} ms${why}` };
  }
  if (closed && command === undefined)
    return { reason: 'network', cause: `the connection was closed before the MCP handshake completed (${message})` };
  if (closed) {
    const how = exit === '' ? 'exited (or closed its stdout)' : exit;
    return {
      reason: 'exited',
      cause: `the server ${how} before answering the MCP handshake${stderrLine === undefined ? '' : `: ${stderrLine}`}`,
    };
  }
  if (/JSON|parse|Unexpected token/i.test(message))
    return { reason: 'protocol', cause: `the server did not speak MCP JSON-RPC: ${message}` };
  return { reason: 'other', cause: stderrLine === undefined ? message : `${message} (stderr: ${stderrLine})` };
}

function exitText(exit: { code: number | null; signal: string | null }): string {
  if (exit.signal !== null) return `was killed by ${exit.signal}`;
  return exit.code === null ? 'exited' : `exited with code ${exit.code}`;
}

/** Where in the config to look; the field named is the one the cause points at. */
function hintFor(reason: StartFailure, input: StartErrorInput, status: number | undefined): string {
  const at = input.server === undefined ? 'this server' : `servers.${input.server}`;
  if (reason === 'auth') return `Check ${at}.headers in your config (e.g. the Authorization header)`;
  if (input.command === undefined) {
    if (status !== undefined && status >= 500)
      return `The server failed on its side: see its logs (it is ${at}.url in your config)`;
    if (reason === 'http_status' || reason === 'protocol')
      return `Check ${at}.url in your config: it must be the server's MCP endpoint`;
    return `Check ${at}.url in your config and that the server is running`;
  }
  if (reason === 'command_not_found')
    return `Check ${at}.command in your config: install the program or give its full path`;
  if (reason === 'not_executable')
    return `Check ${at}.command in your config: make the file executable or run it through its interpreter`;
  if (reason === 'protocol')
    return (
      `An MCP server over stdio must write only JSON-RPC on stdout ` +
      `and log to stderr; check ${at}.command and args in your config`
    );
  return `Check ${at}.command and args in your config; run the command by hand to see what it prints`;
}

// Lines that are never the cause: stack frames, source excerpts, Node's footer and error properties.
const NOISE = [
  /^\s*at\s/,
  /^\s*File ".*", line \d+/,
  /^\s*\^+\s*$/,
  /^\s*~+\s*$/,
  /^node:internal\//,
  /^\S+\.(?:[cm]?[jt]sx?|py|rb):\d+(?::\d+)?$/,
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
function clean(text: string, max = MAX_CAUSE_CHARS): string {
  const one = text
    // eslint-disable-next-line no-control-regex -- stripping control characters is the point
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return one.length > max ? `${one.slice(0, max)}…` : one;
}

function isUnauthorized(error: unknown): boolean {
  for (const e of errorChain(error))
    if (e instanceof Error && (e.name === 'UnauthorizedError' || e.constructor.name === 'UnauthorizedError'))
      return true;
  return false;
}

function httpFailure(error: unknown): { status: number; statusText: string; body: string | undefined } | undefined {
  for (const e of errorChain(error)) {
    const data = errorField(e, 'data');
    const status = errorField(data, 'status');
    if (typeof status === 'number') {
      const statusText = errorField(data, 'statusText');
      const text = errorField(data, 'text');
      return {
        status,
        statusText: typeof statusText === 'string' ? statusText : '',
        body: typeof text === 'string' ? text : undefined,
      };
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
  for (const e of errorChain(error)) {
    const code = errorField(e, 'code');
    if (typeof code !== 'string' || !(code in NETWORK_CODES)) continue;
    const known = NETWORK_CODES[code];
    if (known === undefined) continue;
    const [address, port, hostname] = [errorField(e, 'address'), errorField(e, 'port'), errorField(e, 'hostname')];
    const where =
      typeof address === 'string'
        ? `${address}${typeof port === 'number' ? `:${port}` : ''}`
        : typeof hostname === 'string'
          ? hostname
          : '';
    return { reason: known.reason, cause: `${code}${where === '' ? '' : ` ${where}`} (${known.what})` };
  }
  return undefined;
}
