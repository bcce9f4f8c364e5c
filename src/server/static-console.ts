import { readFile, realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, resolve, sep } from 'node:path';
import { ToolgateError } from '../core/errors.ts';
import { HttpError } from './respond.ts';

export const CONSOLE_PATH_PREFIX = '/console/';
/** The console's page may load only what this server serves, and nobody may frame it. */
export const CONSOLE_CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** A file name, or one folder and a file name: nothing that needs encoding, so no decoding can change it. */
const FILE_PATTERN = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)?$/;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
};

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-cache',
};

const NOT_BUILT_PAGE =
  '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>toolgate console</title></head>\n' +
  ('<body><h1>The console is not built</h1><p>Run <code>npm run build</code> (in a source checkout) and ' +
    ('reload this page. The runs API answers meanwhile: see <a ' +
      'href="/openapi.json">/openapi.json</a>.</p></body></html>\n'));

/** Whether the console answers this path (the raw one, before any URL normalisation). */
export function isConsolePath(rawPath: string): boolean {
  return rawPath === '/' || rawPath.startsWith(CONSOLE_PATH_PREFIX);
}

/**
 * The browser console's files: `/` is `<dir>/index.html`, `/console/<file>`
 * a file of `<dir>` (or of one subfolder). The raw request path is matched, so
 * `..` and percent-encodings never reach the file system; the resolved path
 * (symlinks followed) must still lie inside the folder.
 */
export async function serveConsole(
  req: IncomingMessage,
  res: ServerResponse,
  options: { dir: string; rawPath: string },
): Promise<void> {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') {
    throw new HttpError({
      status: 405,
      code: 'usage',
      message: `${method} is not allowed on ${options.rawPath}; use GET`,
      headers: { Allow: 'GET, HEAD' },
    });
  }
  const index = options.rawPath === '/';
  const name = index ? 'index.html' : options.rawPath.slice(CONSOLE_PATH_PREFIX.length);
  const notFound = new ToolgateError('not_found', `no console file ${options.rawPath}`);
  if (!FILE_PATTERN.test(name) || name.split('/').some((part) => part.startsWith('.'))) throw notFound;
  const file = await insideFile(options.dir, name);
  if (file === undefined) {
    if (!index) throw notFound;
    const page = Buffer.from(NOT_BUILT_PAGE, 'utf8');
    send(req, res, { status: 503, contentType: 'text/html; charset=utf-8', body: page, html: true });
    return;
  }
  const extension = extname(file).toLowerCase();
  send(req, res, {
    status: 200,
    contentType: CONTENT_TYPES[extension] ?? 'application/octet-stream',
    body: await readFile(file),
    html: extension === '.html',
  });
}

/** The real path of `<dir>/<name>` when it is a regular file inside `dir`. */
async function insideFile(dir: string, name: string): Promise<string | undefined> {
  try {
    const root = await realpath(dir);
    const candidate = resolve(root, name);
    if (!candidate.startsWith(root + sep)) return undefined;
    const real = await realpath(candidate);
    if (!real.startsWith(root + sep)) return undefined;
    return (await stat(real)).isFile() ? real : undefined;
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  options: { status: number; contentType: string; body: Buffer; html: boolean },
): void {
  res.writeHead(options.status, {
    ...SECURITY_HEADERS,
    ...(options.html ? { 'Content-Security-Policy': CONSOLE_CSP } : {}),
    'Content-Type': options.contentType,
    'Content-Length': String(options.body.length),
  });
  res.end(req.method === 'HEAD' ? undefined : options.body);
}
