/**
 * The transport's metrics, as handles taken from the program's metric registry (core/metrics `Metrics`).
 * Label values come from closed sets: `type` is a short xDS type (`cds`, `eds`, `lds`, `rds`, `sds`,
 * `ecds`, `other`), plus Istio's `<type>_senderr` on pilot_xds_pushes for send failures.
 */
import type { Counter, Gauge, Histogram } from 'prom-client';
import type { Metrics } from '../../core/index.js';
import { TYPE_URL } from './contracts.js';

/** Where the transport gets its metric handles: the program's core/metrics `Metrics`. */
export type MetricsSource = Pick<Metrics, 'counter' | 'gauge' | 'histogram'>;

const SHORT: Record<string, string> = {
  [TYPE_URL.cluster]: 'cds',
  [TYPE_URL.endpoint]: 'eds',
  [TYPE_URL.listener]: 'lds',
  [TYPE_URL.route]: 'rds',
  [TYPE_URL.secret]: 'sds',
  [TYPE_URL.extensionConfig]: 'ecds',
};

/** The metric label for a type URL: `cds`, `eds`, `lds`, `rds`, `sds`, `ecds` or `other`. */
export function shortType(typeUrl: string): string {
  return SHORT[typeUrl] ?? 'other';
}

/** Typed recording calls over the handles; created once per server. */
export class AdsMetrics {
  readonly #connected: Gauge;
  readonly #pushes: Counter<'type'>;
  readonly #rejects: Counter<'type'>;
  readonly #rejectGauges: Record<string, Gauge>;
  readonly #expiredNonce: Counter<'type'>;
  readonly #sendTime: Histogram;
  readonly #pushTime: Histogram<'type'>;
  readonly #configSize: Histogram<'type'>;
  readonly #queueTime: Histogram;
  readonly #convergence: Histogram;
  readonly #writeTimeout: Counter;
  readonly #internalErrors: Counter;

  constructor(m: MetricsSource) {
    this.#connected = m.gauge('pilot_xds');
    this.#pushes = m.counter('pilot_xds_pushes');
    this.#rejects = m.counter('pilot_total_xds_rejects');
    this.#rejectGauges = {
      cds: m.gauge('pilot_xds_cds_reject'),
      eds: m.gauge('pilot_xds_eds_reject'),
      lds: m.gauge('pilot_xds_lds_reject'),
      rds: m.gauge('pilot_xds_rds_reject'),
    };
    this.#expiredNonce = m.counter('pilot_xds_expired_nonce');
    this.#sendTime = m.histogram('pilot_xds_send_time');
    this.#pushTime = m.histogram('pilot_xds_push_time');
    this.#configSize = m.histogram('pilot_xds_config_size_bytes');
    this.#queueTime = m.histogram('pilot_proxy_queue_time');
    this.#convergence = m.histogram('pilot_proxy_convergence_time');
    this.#writeTimeout = m.counter('pilot_xds_write_timeout');
    this.#internalErrors = m.counter('pilot_total_xds_internal_errors');
  }

  /** A stream was admitted (+1) or closed (-1). */
  connected(delta: 1 | -1): void {
    this.#connected.inc(delta);
  }
  /** One response of this type was sent: size in bytes and seconds spent writing it. */
  sent(typeUrl: string, bytes: number, sendSeconds: number): void {
    const type = shortType(typeUrl);
    this.#pushes.inc({ type });
    this.#configSize.observe({ type }, bytes);
    this.#sendTime.observe(sendSeconds);
  }
  /** Seconds to generate and send one type to one proxy. */
  pushTime(typeUrl: string, seconds: number): void {
    this.#pushTime.observe({ type: shortType(typeUrl) }, seconds);
  }
  /** Writing a response failed. */
  sendError(typeUrl: string): void {
    this.#pushes.inc({ type: `${shortType(typeUrl)}_senderr` });
  }
  /** A proxy NACKed a response. */
  rejected(typeUrl: string): void {
    this.#rejects.inc({ type: shortType(typeUrl) });
  }
  /** A proxy started (+1) or stopped (-1) rejecting the config of this type (gauges per type). */
  rejecting(typeUrl: string, delta: 1 | -1): void {
    this.#rejectGauges[shortType(typeUrl)]?.inc(delta);
  }
  expiredNonce(typeUrl: string): void {
    this.#expiredNonce.inc({ type: shortType(typeUrl) });
  }
  queueTime(seconds: number): void {
    this.#queueTime.observe(seconds);
  }
  convergence(seconds: number): void {
    this.#convergence.observe(seconds);
  }
  writeTimeout(): void {
    this.#writeTimeout.inc();
  }
  internalError(): void {
    this.#internalErrors.inc();
  }
}
