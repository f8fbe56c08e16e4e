/**
 * One xDS stream's state: the proxy, what it watches per type, and what was sent, ACKed and NACKed.
 * All work on a connection (answering its requests, pushing to it) runs one at a time through `run`.
 */
import type { ProxyNode, WatchedResource } from './contracts.js';
import { SharedTable } from './shared-table.js';
import type { CloseHooks } from './send.js';

/** The last NACK of one type. */
export interface NackInfo {
  readonly nonce: string;
  readonly code: number;
  readonly message: string;
  readonly at: Date;
}

/** Per-type state of one connection. Mutated only inside the connection's `run` chain. */
export class WatchState implements WatchedResource {
  /** Shared with every stream that subscribed the same names (see shared-table.ts); replaced, never changed. */
  names: SharedTable = SharedTable.EMPTY;
  wildcard = false;
  /** See WatchedResource.delta: set by the delta handler when it sends deltas. */
  delta = false;
  nonceSent = '';
  versionSent = '';
  sentAt: Date | undefined;
  nonceAcked = '';
  versionAcked = '';
  lastNack: NackInfo | undefined;
  /** True while the proxy's latest answer for this type is a NACK. */
  rejecting = false;
  /** SotW: names in the last response (version ''). Delta: name -> version the client holds. Shared, replaced. */
  sent: SharedTable = SharedTable.EMPTY;
  /** SotW: the resource_names bytes of the request that set `names` and `wildcard` (see request-wire.ts). */
  namesKey: Uint8Array | undefined;
  constructor(readonly typeUrl: string) {}
}

/** What the debug interface shows per type (/debug/syncz, /debug/adsz). */
export interface WatchInfo {
  readonly typeUrl: string;
  readonly names: readonly string[];
  readonly wildcard: boolean;
  readonly versionSent: string;
  readonly nonceSent: string;
  readonly sentAt?: string;
  readonly versionAcked: string;
  readonly nonceAcked: string;
  /** Resources currently held by the proxy as far as meshd knows (SotW: last response; delta: all sent minus removed). */
  readonly resourceCount: number;
  readonly lastNack?: { readonly nonce: string; readonly code: number; readonly message: string; readonly at: string };
}

/** One connection as the debug interface sees it (/debug/connections). */
export interface ConnectionInfo<P = unknown> {
  /** `<node id>-<counter>`, unique in this process. */
  readonly id: string;
  readonly nodeId: string;
  readonly node: ProxyNode;
  /** The generator's per-proxy state. */
  readonly proxy: P;
  readonly peer: string;
  readonly connectedAt: string;
  readonly protocol: 'sotw' | 'delta';
  readonly types: readonly WatchInfo[];
  /** Responses written and not yet taken by the proxy (a stuck proxy shows them here until it is cut off). */
  readonly unflushedWrites: number;
  /** Requests received and not yet processed (bounded; past the bound meshd stops reading the stream). */
  readonly pendingRequests: number;
}

/** Runs async work one piece at a time, in order. */
export class Serial {
  #chain: Promise<void> = Promise.resolve();

  /** Runs `fn` after everything queued before it. A rejection reaches this caller only. */
  run<T>(fn: () => T | Promise<T>): Promise<T> {
    const result = this.#chain.then(fn);
    this.#chain = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

/** NACK warnings of one connection: when the last was logged and how many were held back since. */
export interface NackLogState {
  lastAt: number;
  suppressed: number;
}

/** A live connection. */
export class Connection<P = unknown> implements CloseHooks {
  readonly connectedAt = new Date();
  readonly watched = new Map<string, WatchState>();
  readonly nackLog: NackLogState = { lastAt: Number.NEGATIVE_INFINITY, suppressed: 0 };
  /** Requests received and not yet processed; kept by the stream session. */
  pendingRequests = 0;
  /** Responses made on this stream so far (numbers the nonces). */
  responses = 0;
  /** Writes waiting on their callbacks, to release when the stream ends (see CloseHooks). */
  readonly #closeHooks = new Set<() => void>();
  /** NOTE: a field, not `signal.aborted`: read on every write and its callback (profiles showed the getter at 5 % of a push). */
  #closed = false;
  #unflushed = 0;
  #lastProgress = 0;
  #drainWaiters: (() => void)[] = [];
  #stall: { readonly ms: number; readonly onStall: () => void; timer: NodeJS.Timeout | undefined } | undefined;

  constructor(
    readonly id: string,
    readonly node: ProxyNode,
    readonly proxy: P,
    readonly peer: string,
    readonly protocol: 'sotw' | 'delta',
  ) {}

  /** True once the stream has ended; setting it calls the onClose callbacks and releases whatever waits on writes. */
  get closed(): boolean {
    return this.#closed;
  }
  set closed(v: boolean) {
    if (!v || this.#closed) return;
    this.#closed = true;
    const hooks = [...this.#closeHooks];
    this.#closeHooks.clear();
    for (const fn of hooks) fn();
    if (this.#stall?.timer) clearTimeout(this.#stall.timer);
    this.#unflushed = 0;
    this.#wakeDrainWaiters();
  }

  /** Calls `fn` once when the connection closes (writes waiting on it give up); at once if it has. */
  onClose(fn: () => void): void {
    if (this.#closed) fn();
    else this.#closeHooks.add(fn);
  }

  /** Removes a callback given to onClose. */
  offClose(fn: () => void): void {
    this.#closeHooks.delete(fn);
  }

  /**
   * Calls `onStall` once when writes have been outstanding for `ms` without one of them completing
   * (the proxy reads nothing). Set once, when the connection is opened.
   */
  watchStalls(ms: number, onStall: () => void): void {
    this.#stall = { ms, onStall, timer: undefined };
  }

  /**
   * Counts one response handed to the stream until it is flushed; call the returned function (once) when
   * the write completes or fails. The stall bound runs from the last completion while any is outstanding.
   */
  trackWrite(): () => void {
    if (this.closed) return () => undefined;
    this.#unflushed++;
    if (this.#unflushed === 1) {
      this.#lastProgress = performance.now();
      this.#armStall(this.#stall?.ms ?? 0);
    }
    let done = false;
    return () => {
      if (done || this.closed) return;
      done = true;
      this.#unflushed--;
      this.#lastProgress = performance.now();
      if (this.#unflushed === 0) {
        if (this.#stall?.timer) clearTimeout(this.#stall.timer);
        if (this.#stall) this.#stall.timer = undefined;
        this.#wakeDrainWaiters();
      }
    };
  }

  /** Responses handed to the stream and not flushed yet. */
  get unflushed(): number {
    return this.#unflushed;
  }

  /** Undefined when every response written so far has been flushed, else a promise for that moment (or the close). */
  drained(): Promise<void> | undefined {
    if (this.#unflushed === 0 || this.closed) return undefined;
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  /** Arms the stall timer; when it fires with writes outstanding, it re-arms for the rest of the bound after the last progress. */
  #armStall(delay: number): void {
    const s = this.#stall;
    if (!s || s.timer) return;
    s.timer = setTimeout(() => {
      s.timer = undefined;
      if (this.closed || this.#unflushed === 0) return;
      const idle = performance.now() - this.#lastProgress;
      if (idle >= s.ms) s.onStall();
      else this.#armStall(s.ms - idle);
    }, delay);
    s.timer.unref();
  }

  #wakeDrainWaiters(): void {
    const w = this.#drainWaiters;
    this.#drainWaiters = [];
    for (const f of w) f();
  }

  /** The state of one type, created on first use. */
  watch(typeUrl: string): WatchState {
    let w = this.watched.get(typeUrl);
    if (!w) {
      w = new WatchState(typeUrl);
      this.watched.set(typeUrl, w);
    }
    return w;
  }

  info(): ConnectionInfo<P> {
    return {
      id: this.id,
      nodeId: this.node.id,
      node: this.node,
      proxy: this.proxy,
      peer: this.peer,
      connectedAt: this.connectedAt.toISOString(),
      protocol: this.protocol,
      unflushedWrites: this.#unflushed,
      pendingRequests: this.pendingRequests,
      types: [...this.watched.values()].map((w) => ({
        typeUrl: w.typeUrl,
        names: [...w.names.sorted()],
        wildcard: w.wildcard,
        versionSent: w.versionSent,
        nonceSent: w.nonceSent,
        ...(w.sentAt ? { sentAt: w.sentAt.toISOString() } : {}),
        versionAcked: w.versionAcked,
        nonceAcked: w.nonceAcked,
        resourceCount: w.sent.size,
        ...(w.lastNack
          ? { lastNack: { nonce: w.lastNack.nonce, code: w.lastNack.code, message: w.lastNack.message, at: w.lastNack.at.toISOString() } }
          : {}),
      })),
    };
  }
}
