// The CA's signer threads: worker threads that verify CSR proofs, build and sign leaf certificates, so
// meshd's event loop (gRPC, TLS, xDS) only decodes CSRs, authorizes and relays bytes. Process-wide like
// libuv's thread pool, one thread per CPU, started on first use; idle threads do not keep the process alive.
// What crosses to a thread is in signer-protocol.ts. Measured on 2 cores: RSA 2048 signing ~0.45 ms and the
// CSR check ~0.05-0.08 ms per certificate on a thread; the message round trip ~0.02 ms of event-loop time.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { CsrError } from '../pki/csr.js';
import type { LeafIssuer, LeafRequest } from './leaf-profile.js';
import { issuerMessage, signMessage, type SignerReplyMessage } from './signer-protocol.js';

interface Pending {
  resolve(pem: string): void;
  reject(err: Error): void;
}

interface SignerThread {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
  /** Ids of the issuers the thread holds, oldest first. */
  readonly issuers: number[];
}

/** Issuers a thread keeps: the current one and those still finishing after a root rotation. */
const ISSUERS_PER_THREAD = 4;

/**
 * One signer thread per CPU. Measured on 2 cores (bench:ca): one thread saturated at ~1,250 certificates/s
 * while the event loop had room; two reached ~1,400-1,500/s.
 */
export function defaultSignerThreads(): number {
  return Math.max(1, availableParallelism());
}

/** A fixed-size pool of signer threads; jobs go to the thread with the fewest in flight. */
export class SignerPool {
  readonly #threads: SignerThread[] = [];
  readonly #issuerIds = new WeakMap<LeafIssuer, number>();
  #nextIssuerId = 1;
  #nextId = 1;
  #closed = false;

  constructor(readonly size: number = defaultSignerThreads()) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`signer pool: size must be a positive integer, got ${size}`);
  }

  /**
   * Issues the leaf `request` asks for; resolves to its PEM. Rejects with `CsrError` when the CSR's proof
   * fails. Reuse one `LeafIssuer` object per signing key: each new object is sent to the threads again.
   */
  sign(request: LeafRequest): Promise<string> {
    if (this.#closed) return Promise.reject(new Error('signer pool: closed'));
    const thread = this.#pick();
    const id = this.#nextId++;
    return new Promise<string>((resolve, reject) => {
      if (thread.pending.size === 0) thread.worker.ref();
      thread.pending.set(id, { resolve, reject });
      thread.worker.postMessage(signMessage(id, this.#sendIssuer(thread, request.issuer), request));
    });
  }

  /** Stops the threads; jobs in flight are rejected. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#threads.splice(0).map((t) => t.worker.terminate()));
  }

  /** Makes sure `thread` holds `issuer`; returns its id. */
  #sendIssuer(thread: SignerThread, issuer: LeafIssuer): number {
    let id = this.#issuerIds.get(issuer);
    if (id === undefined) this.#issuerIds.set(issuer, (id = this.#nextIssuerId++));
    if (!thread.issuers.includes(id)) {
      const forget = thread.issuers.length >= ISSUERS_PER_THREAD ? thread.issuers.shift() : undefined;
      thread.issuers.push(id);
      thread.worker.postMessage(issuerMessage(id, issuer, forget));
    }
    return id;
  }

  #pick(): SignerThread {
    let best: SignerThread | undefined;
    for (const t of this.#threads) if (!best || t.pending.size < best.pending.size) best = t;
    if (best && (best.pending.size === 0 || this.#threads.length >= this.size)) return best;
    return this.#start();
  }

  #start(): SignerThread {
    const worker = new Worker(new URL('./signer-worker.js', import.meta.url));
    const thread: SignerThread = { worker, pending: new Map(), issuers: [] };
    worker.unref();
    worker.on('message', (reply: SignerReplyMessage) => {
      const pending = thread.pending.get(reply.id);
      if (!pending) return;
      thread.pending.delete(reply.id);
      if (thread.pending.size === 0) worker.unref();
      if ('pem' in reply) pending.resolve(reply.pem);
      else pending.reject(reply.csrReason ? new CsrError(reply.csrReason, reply.error) : new Error(reply.error));
    });
    const fail = (reason: string): void => {
      const i = this.#threads.indexOf(thread);
      if (i >= 0) this.#threads.splice(i, 1);
      for (const p of thread.pending.values()) p.reject(new Error(`signer thread ${reason}`));
      thread.pending.clear();
    };
    worker.on('error', (err) => fail(`failed: ${err.message}`));
    worker.on('exit', (code) => fail(`exited with code ${code}`));
    this.#threads.push(thread);
    return thread;
  }
}

let shared: SignerPool | undefined;

/** The process-wide pool MeshCa uses unless given another. */
export function sharedSignerPool(): SignerPool {
  shared ??= new SignerPool();
  return shared;
}
