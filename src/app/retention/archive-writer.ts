import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { once } from 'node:events';
import { PassThrough, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { ToolgateError, describeError } from '../../core/index.ts';
import { exportLines, type RecordedRun } from '../replay/index.ts';

/**
 * Writes pruned runs as `toolgate runs export` does (a header line, then the events exactly as stored), unredacted so
 * that `toolgate migrate --from archive:<file>` brings them back as they were. A name ending in `.gz` is gzipped. The
 * file is created anew (an existing one is never overwritten) and synced to disk when closed: retention deletes
 * nothing until `close` has resolved.
 */
export class ArchiveWriter {
  readonly path: string;
  runs = 0;
  readonly #input: Transform;
  readonly #done: Promise<void>;
  #failure: unknown;

  private constructor(path: string, input: Transform, done: Promise<void>) {
    this.path = path;
    this.#input = input;
    this.#done = done.catch((error: unknown) => {
      this.#failure = error;
    });
  }

  static async create(path: string): Promise<ArchiveWriter> {
    // 'wx': fails if the file exists, in the same call that creates it.
    const file = createWriteStream(path, { flags: 'wx', flush: true });
    try {
      await once(file, 'open');
    } catch (error) {
      if (error instanceof Error && 'code' in error && error.code === 'EEXIST')
        throw new ToolgateError(
          'usage',
          `the archive ${path} exists already; an archive is never overwritten: name another file or move it away`,
        );
      throw new ToolgateError('internal', `could not create the archive ${path}: ${describeError(error)}`);
    }
    const input = path.endsWith('.gz') ? createGzip() : new PassThrough();
    return new ArchiveWriter(path, input, pipeline(input, file));
  }

  /** Adds one run with its whole log; waits while the file is behind. */
  async add(recorded: RecordedRun): Promise<void> {
    this.#check();
    this.runs += 1;
    if (!this.#input.write(exportLines(recorded))) await Promise.race([once(this.#input, 'drain'), this.#done]);
    this.#check();
  }

  /** Ends the file and syncs it; rejects when anything was not written. */
  async close(): Promise<void> {
    this.#input.end();
    await this.#done;
    this.#check();
  }

  /** Gives up: the partial file is removed, so that the next pass can write its archive under the same name. */
  async abandon(): Promise<void> {
    this.#input.destroy();
    await this.#done;
    await rm(this.path, { force: true });
  }

  #check(): void {
    if (this.#failure !== undefined)
      throw new ToolgateError('internal', `could not write the archive ${this.path}: ${describeError(this.#failure)}`);
  }
}
