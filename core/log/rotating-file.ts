import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';

/** Limits of a rotating log file; 0 means no limit for age and backups. */
export interface RotationLimits {
  readonly maxSizeBytes: number;
  readonly maxAgeDays: number;
  readonly maxBackups: number;
}

const DAY_MS = 86_400_000;

/**
 * A log file written synchronously that rotates by size: when a write would take it past
 * `maxSizeBytes`, the file is renamed to `<name>-<UTC time>.<ext>` (e.g. `mesh-2026-11-22T00-00-00.000.log`)
 * and a new one is started. Backups beyond `maxBackups` (newest kept) or older than `maxAgeDays` are removed.
 */
export class RotatingFile {
  readonly #path: string;
  readonly #limits: RotationLimits;
  readonly #now: () => number;
  #fd: number;
  #size: number;

  constructor(path: string, limits: RotationLimits, now: () => number = Date.now) {
    this.#path = path;
    this.#limits = limits;
    this.#now = now;
    mkdirSync(dirname(path), { recursive: true });
    this.#fd = openSync(path, 'a');
    this.#size = fstatSync(this.#fd).size;
    this.#prune();
  }

  /** Appends `text`, rotating first if it would not fit. */
  write(text: string): void {
    const bytes = Buffer.byteLength(text);
    if (this.#size > 0 && this.#size + bytes > this.#limits.maxSizeBytes) this.#rotate();
    writeSync(this.#fd, text);
    this.#size += bytes;
  }

  close(): void {
    closeSync(this.#fd);
  }

  /** The backup files present now, oldest first. */
  backups(): string[] {
    return this.#backupsWithTime().map((b) => b.path);
  }

  #rotate(): void {
    closeSync(this.#fd);
    const stamp = new Date(this.#now()).toISOString().replace(/:/g, '-').replace(/Z$/, '');
    const ext = extname(this.#path);
    const stem = join(dirname(this.#path), `${basename(this.#path, ext)}-${stamp}`);
    let target = `${stem}${ext}`;
    for (let n = 1; this.backups().includes(target); n++) target = `${stem}.${n}${ext}`;
    renameSync(this.#path, target);
    this.#fd = openSync(this.#path, 'a');
    this.#size = 0;
    this.#prune();
  }

  #backupsWithTime(): { path: string; time: number }[] {
    const dir = dirname(this.#path);
    const ext = extname(this.#path);
    const prefix = `${basename(this.#path, ext)}-`;
    const found: { path: string; time: number }[] = [];
    for (const name of readdirSync(dir)) {
      if (!name.startsWith(prefix) || !name.endsWith(ext)) continue;
      const m = /^(\d{4}-\d\d-\d\dT\d\d)-(\d\d)-(\d\d\.\d{3})(?:\.\d+)?$/.exec(name.slice(prefix.length, name.length - ext.length));
      if (m) found.push({ path: join(dir, name), time: Date.parse(`${m[1]}:${m[2]}:${m[3]}Z`) });
    }
    return found.sort((a, b) => a.time - b.time || a.path.localeCompare(b.path));
  }

  #prune(): void {
    const backups = this.#backupsWithTime();
    const { maxAgeDays, maxBackups } = this.#limits;
    const tooMany = maxBackups > 0 ? Math.max(0, backups.length - maxBackups) : 0;
    backups.forEach((b, i) => {
      const tooOld = maxAgeDays > 0 && this.#now() - b.time > maxAgeDays * DAY_MS;
      if (i < tooMany || tooOld) rmSync(b.path, { force: true });
    });
  }
}
