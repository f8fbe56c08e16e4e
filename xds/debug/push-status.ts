/**
 * Remembers the latest pushes for `/debug/push_status`.
 */
import { tap, type MonoTypeOperatorFunction } from 'rxjs';
import { PUSH_REASONS, type PushRequest } from '../../core/index.js';

/** One remembered push. */
export interface PushRecord {
  readonly at: string;
  readonly full: boolean;
  readonly reasons: Readonly<Record<string, number>>;
  readonly configsUpdated: readonly string[];
}

/** Keeps the last `limit` pushes (default 20). */
export class PushStatus {
  readonly #limit: number;
  readonly #records: PushRecord[] = [];
  total = 0;

  constructor(limit = 20) {
    this.#limit = limit;
  }

  /** Records one push. */
  record(req: PushRequest): void {
    const reasons: Record<string, number> = {};
    for (const r of PUSH_REASONS) {
      const n = req.reasons.get(r);
      if (n) reasons[r] = n;
    }
    this.#records.push({ at: new Date().toISOString(), full: req.full, reasons, configsUpdated: req.configsUpdated.strings().sort().slice(0, 100) });
    if (this.#records.length > this.#limit) this.#records.shift();
    this.total++;
  }

  /** An operator recording every push passing through. */
  track(): MonoTypeOperatorFunction<PushRequest> {
    return tap((req) => this.record(req));
  }

  /** Newest first. */
  recent(): readonly PushRecord[] {
    return [...this.#records].reverse();
  }
}
