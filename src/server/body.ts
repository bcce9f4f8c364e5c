import { parseJson } from '../core/parse-json.ts';
import type { IncomingMessage } from 'node:http';
import { ToolgateError } from '../core/errors.ts';
import { checkJsonShape } from '../core/json-shape.ts';
import { findJsonSyntaxError } from '../core/json-syntax-error.ts';
import { readLimited } from '../core/read-limited.ts';
import { decodeUtf8 } from '../core/utf8.ts';
import { describeError } from '../core/describe-error.ts';
import { HttpError } from './respond.ts';

/** Default `server.maxBodyBytes`. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/**
 * Past the limit, this much more of a body is read and thrown away before the
 * 413, so that a client still sending gets to read it; a body larger still is
 * answered at once and its connection closed.
 */
export const DEFAULT_MAX_DISCARD_BYTES = 16 * 1024 * 1024;
/**
 * Deepest nesting of a request body (the body itself is level 1). Everything
 * after the parse (zod, the run engine, the store) walks bodies recursively;
 * no API body comes near this.
 */
export const DEFAULT_MAX_BODY_DEPTH = 64;

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const OPEN_CURLY = 0x7b;
const CLOSE_CURLY = 0x7d;
const OPEN_SQUARE = 0x5b;
const CLOSE_SQUARE = 0x5d;

export interface ReadJsonBodyOptions {
  /** Default DEFAULT_MAX_BODY_BYTES (`server.maxBodyBytes`). */
  maxBytes?: number;
  /** Default DEFAULT_MAX_DISCARD_BYTES. */
  discardBytes?: number;
  /** Default DEFAULT_MAX_BODY_DEPTH. */
  maxDepth?: number;
}

/**
 * Reads a JSON request body. Returns undefined for an empty body (whatever its
 * content type), so routes decide whether a body is required.
 * 413 past maxBytes (once the rest is read, up to discardBytes more), 415
 * for a body that is not declared JSON, 400 with the byte offset of a
 * sequence that is not UTF-8 (never decoded to U+FFFD), 400 with the position
 * of the first error for JSON that does not parse, 400 for a body nested
 * deeper than maxDepth (checked on the text, before JSON.parse, which slows
 * down badly on deep input) or holding a number out of range (1e400, named by
 * its path). Nothing recursive (zod) ever sees such a body.
 */
export async function readJsonBody(req: IncomingMessage, options: ReadJsonBodyOptions = {}): Promise<unknown> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BODY_BYTES;
  const read = await readLimited(req, { maxBytes, discardBytes: options.discardBytes ?? DEFAULT_MAX_DISCARD_BYTES });
  if (read.kind === 'too_large') throw tooLarge(maxBytes, read.drained);
  const raw = read.bytes;
  if (raw.length === 0) return undefined;

  if (!isJsonContentType(req.headers['content-type'])) {
    throw new HttpError({
      status: 415,
      code: 'usage',
      message:
        `unsupported Content-Type "${req.headers['content-type'] ?? '(none)'}": ` +
        `send the body as JSON with "Content-Type: application/json"`,
    });
  }
  const decoded = decodeUtf8(raw);
  if (!decoded.ok) {
    const byte = decoded.byte.toString(16).padStart(2, '0');
    throw new ToolgateError(
      'usage',
      `request body is not valid UTF-8 at byte offset ${decoded.offset} (0x${byte}): send the JSON encoded as UTF-8`,
    );
  }
  const { text } = decoded;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_BODY_DEPTH;
  const tooDeep = depthExceededAt(text, maxDepth);
  if (tooDeep >= 0)
    throw new ToolgateError('usage', `request body nests deeper than ${maxDepth} levels at ${locate(text, tooDeep)}`);
  let body: unknown;
  try {
    body = parseJson(text);
  } catch (error) {
    throw new ToolgateError('usage', describeJsonError(text, error));
  }
  // The size is already bounded by maxBytes; the depth was checked on the text, this is the backstop.
  const problem = checkJsonShape(body, { maxDepth, maxNodes: Number.POSITIVE_INFINITY });
  if (problem === undefined) return body;
  const where = problem.path === '' ? '(the whole body)' : problem.path;
  if (problem.code === 'too_deep')
    throw new ToolgateError('usage', `request body nests deeper than ${maxDepth} levels at ${where}`);
  throw new ToolgateError('usage', `request body field ${where}: ${problem.message}`);
}

export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const type = header.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

function tooLarge(maxBytes: number, drained: boolean): HttpError {
  return new HttpError({
    status: 413,
    code: 'usage',
    message:
      `request body is larger than ${maxBytes} bytes (server.maxBodyBytes): ` +
      `send a smaller body, or raise server.maxBodyBytes`,
    // A body cut off before its end leaves the connection unusable: the rest of it would be read as the next request.
    headers: drained ? {} : { Connection: 'close' },
  });
}

/** "request body is not valid JSON at line 2, column 5 (position 9): Unexpected token …" */
function describeJsonError(text: string, error: unknown): string {
  const raw = describeError(error);
  // V8 sometimes reports a position and sometimes only quotes the input back: find it ourselves.
  const reported = /at position (\d+)/.exec(raw)?.[1];
  const position = reported === undefined ? (findJsonSyntaxError(text)?.position ?? text.length) : Number(reported);
  const reason = raw
    .replace(/, .* is not valid JSON$/s, '')
    .replace(/ at position \d+.*$/s, '')
    .replace(/ in JSON$/, '');
  return `request body is not valid JSON at ${locate(text, position)}: ${reason}`;
}

/** "line 2, column 5 (position 9)" */
function locate(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return `line ${line}, column ${column} (position ${position})`;
}

/**
 * Where `text`, read as JSON, first opens a container deeper than `maxDepth`
 * (strings skipped), or -1. Exact for valid JSON; linear, no allocation.
 */
function depthExceededAt(text: string, maxDepth: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i += 1;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_CURLY || c === OPEN_SQUARE) {
      depth += 1;
      if (depth > maxDepth) return i;
    } else if (c === CLOSE_CURLY || c === CLOSE_SQUARE) depth -= 1;
  }
  return -1;
}
