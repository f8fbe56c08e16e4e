/**
 * A small tmpfs of a test's own, for real ENOSPC and EROFS from the kernel (mounting needs root; tests skip,
 * saying why, where it cannot be done).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Why no tmpfs can be mounted here (not Linux, not root, mount refused), or undefined when one can. */
export function tmpfsBlocker(): string | undefined {
  if (process.platform !== 'linux') return 'not Linux';
  if (process.getuid?.() !== 0) return 'not root: mounting a tmpfs needs root';
  const probe = mkdtempSync(join(tmpdir(), 'mesh-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'pipe' });
    execFileSync('umount', [probe], { stdio: 'pipe' });
    return undefined;
  } catch (e) {
    return `mount -t tmpfs failed: ${(e as Error).message.split('\n')[0]}`;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

/** A mounted tmpfs of `bytes` in a new temporary directory. */
export class Tmpfs {
  readonly dir: string;
  #mounted = false;

  constructor(bytes: number, prefix = 'mesh-tmpfs-') {
    this.dir = mkdtempSync(join(tmpdir(), prefix));
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', this.dir], { stdio: 'pipe' });
    this.#mounted = true;
  }

  /** Remounts it read-only or read-write. */
  remount(mode: 'ro' | 'rw'): void {
    execFileSync('mount', ['-o', `remount,${mode}`, this.dir], { stdio: 'pipe' });
  }

  /** Appends to `name` until the file system is full; returns the bytes written. */
  fill(name = '.filler'): number {
    const chunk = Buffer.alloc(4096, 0x61);
    let written = 0;
    for (;;) {
      try {
        writeFileSync(join(this.dir, name), chunk, { flag: 'a' });
        written += chunk.length;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
        return written;
      }
    }
  }

  /** Removes what `fill` wrote. */
  free(name = '.filler'): void {
    rmSync(join(this.dir, name), { force: true });
  }

  /** Unmounts it (lazily: a process may still hold a file open) and removes the directory. */
  dispose(): void {
    if (this.#mounted) execFileSync('umount', ['-l', this.dir], { stdio: 'pipe' });
    this.#mounted = false;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
