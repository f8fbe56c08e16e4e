/**
 * The quick start's client: a proxyless gRPC application that reaches `echo` through meshd (xDS) and
 * keeps a sliding window of where its calls went.
 */
import * as grpc from '@grpc/grpc-js';
import { loadEchoService } from './echo-backend.js';

/** Where calls went during the last window. */
export interface TrafficSnapshot {
  readonly windowMs: number;
  readonly total: number;
  /** Calls answered per backend version. */
  readonly byVersion: ReadonlyMap<string, number>;
  /** Failed calls per gRPC status name. */
  readonly errors: ReadonlyMap<string, number>;
  /** The last error message seen, to tell a newcomer what is wrong. */
  readonly lastError?: string;
}

interface Outcome {
  readonly at: number;
  readonly version?: string;
  readonly error?: string;
}

export interface TrafficOptions {
  /** meshd's plaintext xDS address, host:port. */
  readonly xdsServer: string;
  /** The xDS target, e.g. `xds:///echo.quickstart.svc.cluster.local:50051`. */
  readonly target: string;
  readonly namespace: string;
  readonly callsPerSecond: number;
  readonly windowMs: number;
}

/** A running client. */
export interface Traffic {
  snapshot(): TrafficSnapshot;
  stop(): void;
}

/**
 * Starts calling. The xDS bootstrap is given through `GRPC_XDS_BOOTSTRAP_CONFIG`, which grpc-js-xds reads
 * when it builds its first xDS client, so it is set before the package is loaded.
 */
export async function startTraffic(o: TrafficOptions): Promise<Traffic> {
  process.env.GRPC_XDS_BOOTSTRAP_CONFIG = JSON.stringify({
    xds_servers: [{ server_uri: o.xdsServer, channel_creds: [{ type: 'insecure' }], server_features: ['xds_v3'] }],
    node: {
      id: `sidecar~127.0.0.1~quickstart-client.${o.namespace}~${o.namespace}.svc.cluster.local`,
      // NOTE: grpc-js-xds requires a locality object, even an empty one.
      locality: {},
      metadata: { GENERATOR: 'grpc', NAMESPACE: o.namespace },
    },
  });
  const xds = await import('@grpc/grpc-js-xds');
  xds.register();
  const { Client } = loadEchoService();
  const client = new Client(o.target, grpc.credentials.createInsecure());
  const outcomes: Outcome[] = [];
  let lastError: string | undefined;
  let seq = 0;
  const fire = (): void => {
    const deadline = new Date(Date.now() + 2000);
    client['Echo']!({ message: `call ${seq++}` }, { deadline }, (err: grpc.ServiceError | null, reply?: { version: string }) => {
      if (err) {
        lastError = err.details || err.message;
        outcomes.push({ at: Date.now(), error: grpc.status[err.code] ?? String(err.code) });
      } else {
        outcomes.push({ at: Date.now(), version: reply?.version ?? '?' });
      }
    });
  };
  const timer = setInterval(fire, Math.max(1, Math.round(1000 / o.callsPerSecond)));
  return {
    snapshot(): TrafficSnapshot {
      const since = Date.now() - o.windowMs;
      while (outcomes.length > 0 && outcomes[0]!.at < since) outcomes.shift();
      const byVersion = new Map<string, number>();
      const errors = new Map<string, number>();
      for (const r of outcomes) {
        if (r.version !== undefined) byVersion.set(r.version, (byVersion.get(r.version) ?? 0) + 1);
        if (r.error !== undefined) errors.set(r.error, (errors.get(r.error) ?? 0) + 1);
      }
      const snap: TrafficSnapshot = { windowMs: o.windowMs, total: outcomes.length, byVersion, errors };
      return lastError === undefined ? snap : { ...snap, lastError };
    },
    stop(): void {
      clearInterval(timer);
      client.close();
    },
  };
}
