/**
 * Starts a real grpc-js server on 127.0.0.1:0 with the ADS service, for tests and benchmarks.
 */
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { closeGrpcServer, createMetrics, type Metrics } from '../../core/index.js';
import { AdsServer, type AdsServerOptions } from '../server/ads-server.js';
import type { ResourceGenerator } from '../server/contracts.js';

/** A running ADS server. */
export interface AdsHarness<P> {
  readonly ads: AdsServer<P>;
  readonly grpcServer: grpc.Server;
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  readonly metrics: Metrics;
  /** Closes the ADS streams and the gRPC server. */
  close(): Promise<void>;
}

/** Options: a generator, plus any AdsServerOptions to override (defaults: no throttles, silent logs). */
export type AdsHarnessOptions<P> = { readonly generator: ResourceGenerator<P> } & Partial<Omit<AdsServerOptions<P>, 'generator'>> & {
  readonly serverOptions?: grpc.ServerOptions;
};

/** Starts the server and binds it. */
export async function startAdsHarness<P>(opts: AdsHarnessOptions<P>): Promise<AdsHarness<P>> {
  const metrics = opts.metrics ? (opts.metrics as Metrics) : createMetrics('pilot-discovery', { processMetrics: false });
  const silent = pino({ level: 'silent' });
  const ads = new AdsServer<P>({
    pushThrottle: 10,
    maxRequestsPerSecond: 10_000,
    sendTimeoutMs: 0,
    deltaXds: false,
    loggers: { ads: silent, delta: silent },
    ...opts,
    metrics,
  });
  const grpcServer = new grpc.Server(opts.serverOptions);
  ads.register(grpcServer);
  const port = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    ads,
    grpcServer,
    address: `127.0.0.1:${port}`,
    metrics,
    close: async () => {
      ads.close();
      await closeGrpcServer(grpcServer, 2000);
    },
  };
}

/** The value of a metric (summed over series matching `labels`); histograms give their `_count`. */
export async function metricValue(metrics: Metrics, name: string, labels: Readonly<Record<string, string>> = {}): Promise<number> {
  const m = metrics.registry.getSingleMetric(name);
  if (!m) throw new Error(`no metric ${name}`);
  const { values } = await m.get();
  let sum = 0;
  for (const v of values) {
    const name2 = (v as { metricName?: string }).metricName;
    if (name2 && name2 !== name && name2 !== `${name}_count`) continue;
    if (Object.entries(labels).every(([k, x]) => v.labels[k] === x)) sum += v.value;
  }
  return sum;
}
