/**
 * One xDS stream's state: the proxy, what it watches per type, and what was sent, ACKed and NACKed.
 * All work on a connection (answering its requests, pushing to it) runs one at a time through `run`.
 */
import type { ProxyNode, WatchedResource } from './contracts.js';

/** The last NACK of one type. */
export interface NackInfo {
  readonly nonce: string;
  readonly code: number;
  readonly message: string;
  readonly at: Date;
}

/** Per-type state of one connection. Mutated only inside the connection's `run` chain. */
export class WatchState implements WatchedResource {
  names = new Set<string>();
  wildcard = false;
  nonceSent = '';
  versionSent = '';
  sentAt: Date | undefined;
  nonceAcked = '';
  versionAcked = '';
  lastNack: NackInfo | undefined;
  /** True while the proxy's latest answer for this type is a NACK. */
  rejecting = false;
  /** SotW: names in the last response (to tell removals). Delta: name -> version the client holds. */
  readonly sent = new Map<string, string>();
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

/** A live connection. */
export class Connection<P = unknown> {
  readonly connectedAt = new Date();
  readonly watched = new Map<string, WatchState>();
  closed = false;

  constructor(
    readonly id: string,
    readonly node: ProxyNode,
    readonly proxy: P,
    readonly peer: string,
    readonly protocol: 'sotw' | 'delta',
  ) {}

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
      types: [...this.watched.values()].map((w) => ({
        typeUrl: w.typeUrl,
        names: [...w.names].sort(),
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
