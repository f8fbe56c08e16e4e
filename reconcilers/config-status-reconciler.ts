import type { Logger } from 'pino';
import type { Observable, Subscription } from 'rxjs';
import { configKeyString, parseConfigKey, systemClock, type Clock, type Metrics } from '../core/index.js';
import { OrchApiError, TokenBucket, type OrchTransport } from '../controllers/index.js';
import { KINDS, type KindName } from '../crds/index.js';
import type { ConfigStatusReport } from './config-status-report.js';
import type { LeaderTask } from './leader/leader-elector.js';
import { ReconcileRunner, TerminalError } from './runtime/reconcile-runner.js';

/** Name of the reconciler: its log field and the `name` label of its queue metrics. */
export const CONFIG_STATUS_RECONCILER_NAME = 'config-status';
/** The condition type the writer owns. */
export const RECONCILED_CONDITION = 'Reconciled';

/** A status condition as mesh.io kinds carry it (Istio's IstioCondition). */
export interface StatusCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly observedGeneration?: number | string;
  readonly lastTransitionTime?: string;
  readonly reason?: string;
  readonly message?: string;
}

/**
 * The `Reconciled` condition for `report`, or undefined when `existing` already says the same. The
 * transition time moves only when the status flips.
 */
export function reconciledCondition(existing: StatusCondition | undefined, report: ConfigStatusReport, now: Date): StatusCondition | undefined {
  const accepted = report.outcome.accepted;
  const want = {
    type: RECONCILED_CONDITION,
    status: accepted ? 'True' : 'False',
    observedGeneration: report.generation,
    reason: accepted ? 'Accepted' : 'Rejected',
    message: report.outcome.accepted ? 'configuration accepted' : report.outcome.message,
  } as const;
  if (
    existing &&
    existing.status === want.status &&
    Number(existing.observedGeneration) === want.observedGeneration &&
    existing.reason === want.reason &&
    existing.message === want.message
  ) {
    return undefined;
  }
  const lastTransitionTime =
    existing?.status === want.status && existing.lastTransitionTime ? existing.lastTransitionTime : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return { ...want, lastTransitionTime };
}

/** Options of a {@link ConfigStatusReconciler}. */
export interface ConfigStatusReconcilerOptions {
  readonly client: OrchTransport;
  /** What the config source concluded about each object it processed. */
  readonly reports$: Observable<ConfigStatusReport>;
  /** PILOT_STATUS_QPS: status writes per second. */
  readonly qps: number;
  /** PILOT_STATUS_BURST. */
  readonly burst: number;
  /** PILOT_STATUS_MAX_WORKERS: objects written at once. */
  readonly maxWorkers: number;
  /** Time of the runner, the write rate limiter and `lastTransitionTime` (wall); default {@link systemClock}. */
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Queue metrics (MESH_ENABLE_CONTROLLER_QUEUE_METRICS); default none. */
  readonly metrics?: Metrics;
}

interface StatusObject {
  metadata?: { generation?: number; resourceVersion?: string };
  status?: { conditions?: StatusCondition[] };
}

/**
 * Writes a `Reconciled` condition (True when accepted, False with the reason when rejected) on mesh.io
 * objects through their status subresource: a JSON merge patch on `/status` carrying the resourceVersion
 * read (a conflict retries) and every other condition unchanged, at most `qps`/`burst` writes and
 * `maxWorkers` at once. It keeps the latest report per object from {@link ConfigStatusReconciler.attach}
 * on; writes only while started (leader-only), and on start catches up on every object reported so far.
 * A report older than the object's generation is skipped (a newer one follows); a deleted object is forgotten.
 */
export class ConfigStatusReconciler implements LeaderTask {
  readonly #options: ConfigStatusReconcilerOptions;
  readonly #desired = new Map<string, ConfigStatusReport>();
  readonly #bucket: TokenBucket;
  #input: Subscription | undefined;
  #runner: ReconcileRunner | undefined;

  constructor(options: ConfigStatusReconcilerOptions) {
    this.#options = options;
    this.#bucket = new TokenBucket(options.qps, options.burst, options.clock ?? systemClock);
    if (!(Number.isInteger(options.maxWorkers) && options.maxWorkers >= 1)) {
      throw new RangeError(`PILOT_STATUS_MAX_WORKERS must be an integer >= 1, got ${options.maxWorkers}`);
    }
  }

  /** The runner while started (for tests and introspection). */
  get runner(): ReconcileRunner | undefined {
    return this.#runner;
  }

  /** Starts collecting reports (call once at boot, leader or not). */
  attach(): void {
    this.#input ??= this.#options.reports$.subscribe((report) => {
      const key = configKeyString(report.key);
      this.#desired.set(key, report);
      this.#runner?.add(key);
    });
  }

  /** Stops collecting reports. */
  detach(): void {
    this.#input?.unsubscribe();
    this.#input = undefined;
  }

  /** Starts writing (on election), first every object reported so far. */
  start(): void {
    if (this.#runner) return;
    const o = this.#options;
    const runner = new ReconcileRunner({
      name: CONFIG_STATUS_RECONCILER_NAME,
      reconcile: (key, signal) => this.#reconcile(key, signal),
      maxConcurrent: o.maxWorkers,
      clock: o.clock,
      logger: o.logger,
      metrics: o.metrics,
    });
    this.#runner = runner;
    for (const key of this.#desired.keys()) runner.add(key);
    runner.start();
  }

  /** Stops writing and waits for writes in flight. */
  async stop(): Promise<void> {
    const runner = this.#runner;
    this.#runner = undefined;
    await runner?.stop();
  }

  async #reconcile(keyText: string, signal: AbortSignal): Promise<void> {
    const report = this.#desired.get(keyText);
    if (!report) return;
    const key = parseConfigKey(keyText);
    const kind = (KINDS as Record<string, (typeof KINDS)[KindName] | undefined>)[key.kind];
    if (!kind) throw new TerminalError(`status of ${keyText}: ${key.kind} is not a mesh.io kind`);
    const scope = kind.scope === 'Namespaced' ? `/namespaces/${encodeURIComponent(key.namespace)}` : '';
    const path = `/apis/${kind.group}/${kind.storageVersion}${scope}/${kind.plural}/${encodeURIComponent(key.name)}`;
    let object: StatusObject;
    try {
      object = await this.#options.client.request<StatusObject>('GET', path, { signal });
    } catch (err) {
      if (err instanceof OrchApiError && err.status === 404) {
        if (this.#desired.get(keyText) === report) this.#desired.delete(keyText);
        return;
      }
      throw err;
    }
    if ((object.metadata?.generation ?? 0) > report.generation) return;
    const conditions = object.status?.conditions ?? [];
    const existing = conditions.find((c) => c.type === RECONCILED_CONDITION);
    const condition = reconciledCondition(existing, report, (this.#options.clock ?? systemClock).date());
    if (!condition) return;
    const others = conditions.filter((c) => c.type !== RECONCILED_CONDITION);
    await this.#bucket.take(signal);
    await this.#options.client.request(`PATCH`, `${path}/status`, {
      contentType: 'application/merge-patch+json',
      body: {
        metadata: { resourceVersion: object.metadata?.resourceVersion },
        status: { conditions: [...others, condition], observedGeneration: report.generation },
      },
      signal,
    });
  }
}
