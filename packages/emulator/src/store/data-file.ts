import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parseSnapshot, type StoreSnapshot } from './snapshot.js';

/** The data file exists but cannot be used; the emulator refuses to start rather than overwrite it. */
export class DataFileError extends Error {
  override readonly name = 'DataFileError';
  readonly code = 'ERR_EMULATOR_DATA_FILE';
}

/**
 * Reads the data file synchronously. A missing file is an empty store; an unreadable or invalid
 * one throws `DataFileError`. Temporary files left by a crash mid-write are never read: the
 * rename that publishes a write is atomic, so the main file is always a complete write.
 */
export function loadDataFile(path: string): StoreSnapshot | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new DataFileError(`cannot read data file ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    return parseSnapshot(JSON.parse(text));
  } catch (error) {
    throw new DataFileError(
      `data file ${path} is corrupt (${(error as Error).message}); refusing to start so its contents are not overwritten. Move it away or fix it.`,
      { cause: error },
    );
  }
}

/** `.groups.json.<pid>.<sequence>.tmp`: the temp files `DataFileWriter` writes next to `path`. */
const isTempFileOf = (path: string, name: string) => {
  const prefix = `.${basename(path)}.`;
  return name.startsWith(prefix) && /^\d+\.\d+\.tmp$/.test(name.slice(prefix.length));
};

/**
 * Deletes temp files a write interrupted by a crash left next to the data file. Called once at
 * start, before this process writes anything; those files are never read (see `loadDataFile`).
 */
export function removeLeftoverTempFiles(path: string): void {
  const dir = dirname(path);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!isTempFileOf(path, name)) continue;
    try {
      unlinkSync(join(dir, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new DataFileError(`cannot remove leftover temp file ${join(dir, name)}: ${(error as Error).message}`, { cause: error });
    }
  }
}

/**
 * Writes snapshots atomically: a temp file in the same directory, fsync, rename over the data
 * file, fsync the directory. Writes never overlap; callers that ask while one runs share the
 * next write, which snapshots after their change, so a resolved `write()` means their change
 * is on disk.
 */
export class DataFileWriter {
  readonly #path: string;
  readonly #snapshot: () => StoreSnapshot;
  #running: Promise<void> | undefined;
  #queued: Promise<void> | undefined;
  #sequence = 0;
  /** Counts `write()` calls; `#durableCount` is the count the last successful write covered. */
  #requestedCount = 0;
  #durableCount = 0;

  constructor(path: string, snapshot: () => StoreSnapshot) {
    this.#path = path;
    this.#snapshot = snapshot;
  }

  write(): Promise<void> {
    this.#requestedCount++;
    if (this.#queued) return this.#queued;
    if (!this.#running) return this.#start();
    this.#queued = this.#running
      .catch(() => undefined)
      .then(() => {
        this.#queued = undefined;
        return this.#start();
      });
    return this.#queued;
  }

  /**
   * Resolves once everything a `write()` was asked for is on disk, without writing when it
   * already is. A reader that found state a writer is still persisting waits here, so nothing
   * is acknowledged before it is durable; rejects when that write fails.
   */
  durable(): Promise<void> {
    if (this.#queued) return this.#queued;
    if (this.#running) return this.#running;
    if (this.#durableCount < this.#requestedCount) return this.write();
    return Promise.resolve();
  }

  /** Resolves once every requested write has finished (successfully or not). */
  async flush(): Promise<void> {
    await (this.#queued ?? this.#running)?.catch(() => undefined);
  }

  #start(): Promise<void> {
    const covers = this.#requestedCount;
    const running = this.#writeNow(JSON.stringify(this.#snapshot()))
      .then(() => {
        this.#durableCount = Math.max(this.#durableCount, covers);
      })
      .finally(() => {
        if (this.#running === running) this.#running = undefined;
      });
    this.#running = running;
    return running;
  }

  async #writeNow(text: string): Promise<void> {
    const dir = dirname(this.#path);
    const temp = join(dir, `.${basename(this.#path)}.${process.pid}.${++this.#sequence}.tmp`);
    const handle = await open(temp, 'w', 0o600);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } catch (error) {
      await handle.close().catch(() => undefined);
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    await handle.close();
    try {
      await rename(temp, this.#path);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    syncDirectory(dir);
  }
}

function syncDirectory(dir: string): void {
  // Makes the rename itself durable. Some platforms cannot open a directory for fsync; the
  // rename is still atomic there, only its durability across power loss is weaker.
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    return;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
