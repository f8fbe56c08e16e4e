/**
 * Replacing a file the proxy or the gRPC library reads: whole or not at all. The text goes to a temporary file in the
 * same folder, renamed into place, so a reader never sees half a file and a full disk leaves the old one as it was.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** A file could not be written; the previous one, if any, is unchanged. */
export class FileWriteError extends Error {
  override readonly name = 'FileWriteError';
  constructor(
    readonly path: string,
    /** What the file system said (`ENOSPC: no space left on device, write`). */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot write ${path}: ${reason}`, options);
  }
}

/** Writes `data` to `path` (creating its folder) whole or not at all; throws FileWriteError, leaving nothing behind. */
export function writeFileWhole(path: string, data: string | Uint8Array, mode = 0o644): void {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(temp, data, { mode });
    renameSync(temp, path);
  } catch (e) {
    try {
      rmSync(temp, { force: true });
    } catch {
      // NOTE: nothing more to do where even the removal fails (a read-only file system); the error says why.
    }
    throw new FileWriteError(path, (e as Error).message, { cause: e });
  }
}
