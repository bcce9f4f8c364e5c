import { constants, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { describeError } from '../../core/describe-error.ts';
import { ToolgateError } from '../../core/errors.ts';
import { findJsonSyntaxError } from '../../core/json-syntax-error.ts';
import { parseScript, type ScriptedScript } from './script-schema.ts';

/** Scripts are hand-written or recorded turns: 4 MiB is already thousands of them. */
export const DEFAULT_MAX_SCRIPT_BYTES = 4 * 1024 * 1024;
const READ_CHUNK_BYTES = 64 * 1024;

export interface LoadScriptOptions {
  /** Largest script accepted, in bytes. */
  maxBytes?: number;
}

/**
 * Reads and validates a scripted model script (JSON; format in script-schema.ts).
 * The path may come from outside (a model id in a request), so only a regular
 * file is read, never more than maxBytes + 1 bytes of it whatever size it
 * claims, and no error quotes its content: it could be /etc/passwd.
 */
export async function loadScript(file: string, options: LoadScriptOptions = {}): Promise<ScriptedScript> {
  const text = await readScript(file, options.maxBytes ?? DEFAULT_MAX_SCRIPT_BYTES);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse's own message quotes the text around the error, so it is neither shown nor kept as the cause.
    const where = findJsonSyntaxError(text);
    const at =
      where === undefined
        ? ''
        : `: ${where.reason} at line ${where.line}, column ${where.column} (position ${where.position})`;
    throw new ToolgateError('config_invalid', `scripted model script ${file} is not valid JSON${at}`, {
      details: {
        source: file,
        ...(where === undefined ? {} : { line: where.line, column: where.column, position: where.position }),
      },
    });
  }
  return parseScript(json, file);
}

async function readScript(file: string, maxBytes: number): Promise<string> {
  let info: Stats;
  try {
    info = await stat(file);
  } catch (error) {
    throw cannotRead(file, error);
  }
  // Checked before opening: opening a FIFO waits for a writer, and a device may act on open.
  refuseUnlessRegular(file, info);
  if (info.size > maxBytes) throw tooLarge(file, maxBytes);
  let handle: FileHandle;
  try {
    // Non-blocking, in case the path became a FIFO since the check; the handle is checked again below.
    handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw cannotRead(file, error);
  }
  try {
    refuseUnlessRegular(file, await handle.stat());
    // The size stat reports is not trusted: /proc files report 0, and a file can grow while read.
    const chunks: Buffer[] = [];
    let total = 0;
    while (total <= maxBytes) {
      const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
    }
    if (total > maxBytes) throw tooLarge(file, maxBytes);
    const text = Buffer.concat(chunks, total).toString('utf8');
    // Editors on Windows write a byte-order mark, which JSON.parse refuses.
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch (error) {
    throw error instanceof ToolgateError ? error : cannotRead(file, error);
  } finally {
    await handle.close();
  }
}

function refuseUnlessRegular(file: string, info: Stats): void {
  if (info.isFile()) return;
  throw new ToolgateError(
    'usage',
    `scripted model script ${file} is not a regular file (it is ${kindOf(info)}); give the path of a JSON script`,
    {
      details: { source: file },
    },
  );
}

function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  return 'not a file';
}

function tooLarge(file: string, maxBytes: number): ToolgateError {
  return new ToolgateError(
    'usage',
    `scripted model script ${file} is larger than ${maxBytes} bytes ` +
      `(maxBytes); check the path, or raise maxBytes for a script this large`,
    {
      details: { source: file, maxBytes },
    },
  );
}

/** The system's reason names the path and the failure (ENOENT, EACCES…), never content. */
function cannotRead(file: string, error: unknown): ToolgateError {
  const reason = describeError(error);
  return new ToolgateError('usage', `cannot read scripted model script ${file}: ${reason}`, {
    cause: error,
    details: { source: file },
  });
}
