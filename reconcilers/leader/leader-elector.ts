import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { BehaviorSubject, type Observable } from 'rxjs';
import { systemClock, type Clock } from '../../core/index.js';
import { OrchApiError, type OrchTransport } from '../../controllers/index.js';

/** The Lease of each leader-only controller (Istio's election names, `istio` renamed `mesh`). */
export const LEASE_NAMES = {
  /** Ingress status and other cluster-wide singletons. */
  leader: 'mesh-leader',
  /** The root-certificate ConfigMap distribution (Istio's namespace controller). */
  namespaceController: 'mesh-namespace-controller-election',
  /** The config status writer. */
  status: 'mesh-status-leader',
  analyze: 'mesh-analyze-leader',
  gatewayStatus: 'mesh-gateway-status-leader',
} as const;

/** Timings of an election, client-go's defaults (15 s / 10 s / 2 s). */
export const DEFAULT_LEASE_TIMINGS = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 } as const;

/** Something that runs only while this process holds a lease. */
export interface LeaderTask {
  /** Called on election; may start informers, runners, timers. */
  start(): void | Promise<void>;
  /** Called when leadership ends (lost or released); resolves once the task has stopped writing. */
  stop(): Promise<void>;
}

/** Options of a {@link LeaderElector}. */
export interface LeaderElectorOptions {
  readonly client: OrchTransport;
  /** Namespace of the Lease (meshd's own, POD_NAMESPACE). */
  readonly namespace: string;
  /** Lease name, one of {@link LEASE_NAMES}. */
  readonly name: string;
  /** Unique holder identity; see {@link leaderIdentity}. */
  readonly identity: string;
  /** How long a lease holds without renewal; default 15 s; a whole number of seconds on the server (rounded up). */
  readonly leaseDurationMs?: number;
  /** How long the leader keeps trying to renew before it gives up leadership; default 10 s. */
  readonly renewDeadlineMs?: number;
  /** Interval between attempts; default 2 s (acquire attempts get up to 20 % jitter). */
  readonly retryPeriodMs?: number;
  /** Time for retries, renew deadlines (monotonic) and the lease's acquire/renew times (wall); default {@link systemClock}. */
  readonly clock?: Clock;
  readonly random?: () => number;
  /** Where elections and failures are logged; default: not logged. */
  readonly logger?: Logger;
}

/** `coordination.k8s.io/v1` Lease, the fields an election uses. */
interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; [field: string]: unknown };
  spec?: LeaseSpec;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

const LEASES_GROUP_PATH = '/apis/coordination.k8s.io/v1';

/** A holder identity: the pod name (POD_NAME, else the host name) and a random suffix, like client-go's. */
export function leaderIdentity(podName: string | undefined): string {
  return `${podName || hostname()}_${randomBytes(4).toString('hex')}`;
}

/** Kubernetes MicroTime: RFC 3339 with exactly six fractional digits. */
function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Leader election over a `coordination.k8s.io/v1` Lease, as client-go's `leaderelection`: a candidate
 * takes the lease when it is free or its holder has not renewed it for `leaseDuration` (judged on this
 * process's own clock from when the holder's record last changed), the leader renews every `retryPeriod`
 * and steps down when it has not renewed for `renewDeadline`; every write carries the resourceVersion it
 * read, so two candidates never both win. After losing, it campaigns again. {@link LeaderElector.stop}
 * stops the tasks and then releases the lease, so that a successor takes over at once.
 */
export class LeaderElector {
  readonly name: string;
  readonly identity: string;
  readonly #client: OrchTransport;
  readonly #path: string;
  readonly #collectionPath: string;
  readonly #namespace: string;
  readonly #leaseDurationMs: number;
  readonly #renewDeadlineMs: number;
  readonly #retryPeriodMs: number;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #logger: Logger | undefined;
  readonly #tasks: LeaderTask[] = [];
  readonly #leading = new BehaviorSubject<boolean>(false);
  #observed: { holder: string; version: string; durationMs: number; at: number } | undefined;
  #abort: AbortController | undefined;
  #loop: Promise<void> | undefined;

  constructor(options: LeaderElectorOptions) {
    this.name = options.name;
    this.identity = options.identity;
    this.#client = options.client;
    this.#namespace = options.namespace;
    this.#collectionPath = `${LEASES_GROUP_PATH}/namespaces/${encodeURIComponent(options.namespace)}/leases`;
    this.#path = `${this.#collectionPath}/${encodeURIComponent(options.name)}`;
    this.#leaseDurationMs = options.leaseDurationMs ?? DEFAULT_LEASE_TIMINGS.leaseDurationMs;
    this.#renewDeadlineMs = options.renewDeadlineMs ?? DEFAULT_LEASE_TIMINGS.renewDeadlineMs;
    this.#retryPeriodMs = options.retryPeriodMs ?? DEFAULT_LEASE_TIMINGS.retryPeriodMs;
    if (!(this.#leaseDurationMs > this.#renewDeadlineMs && this.#renewDeadlineMs > this.#retryPeriodMs * 1.2 && this.#retryPeriodMs > 0)) {
      throw new RangeError(
        `leader election ${this.name}: needs leaseDuration > renewDeadline > 1.2 * retryPeriod > 0 ` +
          `(got ${this.#leaseDurationMs} / ${this.#renewDeadlineMs} / ${this.#retryPeriodMs} ms)`,
      );
    }
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#logger = options.logger;
  }

  /** Whether this process holds the lease now. */
  get isLeader(): boolean {
    return this.#leading.value;
  }

  /** true while this process holds the lease; replays the current value. */
  get leading$(): Observable<boolean> {
    return this.#leading.asObservable();
  }

  /** Registers a task to run while leading (started at once when already leading). */
  runWhileLeading(task: LeaderTask): void {
    this.#tasks.push(task);
    if (this.isLeader) void this.#startTask(task);
  }

  /** Starts campaigning. */
  start(): void {
    if (this.#loop) return;
    const abort = new AbortController();
    this.#abort = abort;
    this.#loop = this.#run(abort.signal);
  }

  /** Stops campaigning; when leading, stops the tasks and then releases the lease (holder cleared). */
  async stop(): Promise<void> {
    const abort = this.#abort;
    if (!abort) return;
    abort.abort(new Error(`leader election ${this.name} stopped`));
    await this.#loop;
    this.#abort = undefined;
    this.#loop = undefined;
  }

  async #run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const acquired = await this.#acquire(signal);
      if (!acquired) return;
      this.#logger?.info({ lease: this.name, identity: this.identity }, 'leader election won: starting leader-only controllers');
      this.#leading.next(true);
      for (const task of this.#tasks) await this.#startTask(task);
      await this.#renewUntilLost(signal);
      this.#leading.next(false);
      await Promise.allSettled(this.#tasks.map((task) => task.stop()));
      if (signal.aborted) {
        await this.#release();
        return;
      }
      this.#logger?.warn({ lease: this.name, identity: this.identity }, 'leader election lost: stopped leader-only controllers');
    }
  }

  async #startTask(task: LeaderTask): Promise<void> {
    try {
      await task.start();
    } catch (err) {
      this.#logger?.error({ lease: this.name, error: errorMessage(err) }, 'leader-only controller failed to start');
    }
  }

  /** Tries every retryPeriod (with jitter) until it holds the lease; false when stopped first. */
  async #acquire(signal: AbortSignal): Promise<boolean> {
    for (;;) {
      if (signal.aborted) return false;
      if (await this.#tryAcquireOrRenew(signal)) return true;
      const jittered = this.#retryPeriodMs * (1 + 0.2 * this.#random());
      try {
        await this.#clock.sleep(jittered, signal);
      } catch {
        return false;
      }
    }
  }

  /** Renews every retryPeriod; returns when no renewal succeeded for renewDeadline, or when stopped. */
  async #renewUntilLost(signal: AbortSignal): Promise<void> {
    let lastRenew = this.#clock.now();
    for (;;) {
      try {
        await this.#clock.sleep(this.#retryPeriodMs, signal);
      } catch {
        return;
      }
      // NOTE: an attempt may not outlive the renew deadline, or a hung request would keep this process
      // leading after the lease has expired for the others (client-go bounds the renew loop the same way).
      const left = this.#renewDeadlineMs - (this.#clock.now() - lastRenew);
      if (left > 0 && (await this.#tryAcquireOrRenew(signal, left))) {
        lastRenew = this.#clock.now();
      } else if (this.#clock.now() - lastRenew >= this.#renewDeadlineMs || this.#heldByOther()) {
        return;
      }
    }
  }

  #heldByOther(): boolean {
    const holder = this.#observed?.holder;
    return holder !== undefined && holder !== '' && holder !== this.identity;
  }

  /** One attempt: create the lease, take it when free or expired, or renew it when held; false on any failure. */
  async #tryAcquireOrRenew(signal: AbortSignal, timeoutMs = this.#renewDeadlineMs): Promise<boolean> {
    const now = this.#clock.now();
    const nowTime = microTime(this.#clock.date());
    const durationSeconds = Math.max(1, Math.ceil(this.#leaseDurationMs / 1000));
    try {
      let lease: Lease;
      try {
        lease = await this.#client.request<Lease>('GET', this.#path, { signal, timeoutMs });
      } catch (err) {
        if (!(err instanceof OrchApiError && err.status === 404)) throw err;
        const spec: LeaseSpec = {
          holderIdentity: this.identity, leaseDurationSeconds: durationSeconds, acquireTime: nowTime, renewTime: nowTime, leaseTransitions: 0,
        };
        const body: Lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.name, namespace: this.#namespace }, spec };
        this.#observe(await this.#client.request<Lease>('POST', this.#collectionPath, { body, signal, timeoutMs }), now);
        return true;
      }
      const spec = lease.spec ?? {};
      const holder = spec.holderIdentity ?? '';
      this.#observe(lease, now);
      const observed = this.#observed!;
      if (holder !== '' && holder !== this.identity && observed.at + observed.durationMs > now) return false;
      const mine = holder === this.identity;
      const next: LeaseSpec = {
        holderIdentity: this.identity,
        leaseDurationSeconds: durationSeconds,
        acquireTime: mine ? (spec.acquireTime ?? nowTime) : nowTime,
        renewTime: nowTime,
        leaseTransitions: mine ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
      };
      this.#observe(await this.#client.request<Lease>('PUT', this.#path, { body: { ...lease, spec: next }, signal, timeoutMs }), now);
      return true;
    } catch (err) {
      if (!signal.aborted && !(err instanceof OrchApiError && err.status === 409)) {
        this.#logger?.warn({ lease: this.name, error: errorMessage(err) }, 'leader election: lease request failed');
      }
      return false;
    }
  }

  /**
   * Records the lease; its observation time moves only when the lease changed (client-go's rule). NOTE: a
   * change is judged by resourceVersion, which every write bumps, not by renewTime, whose wall-clock text
   * could repeat.
   */
  #observe(lease: Lease, now: number): void {
    const holder = lease.spec?.holderIdentity ?? '';
    const version = lease.metadata.resourceVersion ?? '';
    const durationMs = (lease.spec?.leaseDurationSeconds ?? Math.ceil(this.#leaseDurationMs / 1000)) * 1000;
    const previous = this.#observed;
    if (previous && previous.holder === holder && previous.version === version && previous.durationMs === durationMs) return;
    this.#observed = { holder, version, durationMs, at: now };
  }

  /** Clears the holder (lease duration 1 s) when this process still holds the lease. */
  async #release(): Promise<void> {
    try {
      const lease = await this.#client.request<Lease>('GET', this.#path, { timeoutMs: this.#renewDeadlineMs });
      if (lease.spec?.holderIdentity !== this.identity) return;
      const nowTime = microTime(this.#clock.date());
      const spec: LeaseSpec = {
        holderIdentity: '', leaseDurationSeconds: 1, acquireTime: nowTime, renewTime: nowTime, leaseTransitions: lease.spec.leaseTransitions ?? 0,
      };
      await this.#client.request<Lease>('PUT', this.#path, { body: { ...lease, spec }, timeoutMs: this.#renewDeadlineMs });
      this.#logger?.info({ lease: this.name, identity: this.identity }, 'leader election: lease released');
    } catch (err) {
      this.#logger?.warn({ lease: this.name, error: errorMessage(err) }, 'leader election: could not release the lease');
    }
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
