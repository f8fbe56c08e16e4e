/**
 * fetchProxyConfig: what an xDS server sends one Envoy sidecar, fetched over real gRPC ADS as Envoy asks
 * for it (a test stand-in that says it is a sidecar): LDS and CDS wildcard, then the route configurations
 * the listeners name and the load assignments the EDS clusters name, every response ACKed, until the
 * server has been quiet for `quietMs`. Resources are decoded to protobuf JSON (lowerCamelCase, `Any`
 * expanded), the form the request simulator reads.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { TYPE_URL, toJson, type ProxyConfig } from '../../xds/index.js';
import { AdsClient, type TestNode } from '../../xds/testing/index.js';

type Obj = Record<string, unknown>;
const MESSAGE: Readonly<Record<string, string>> = {
  [TYPE_URL.listener]: 'envoy.config.listener.v3.Listener',
  [TYPE_URL.cluster]: 'envoy.config.cluster.v3.Cluster',
  [TYPE_URL.route]: 'envoy.config.route.v3.RouteConfiguration',
  [TYPE_URL.endpoint]: 'envoy.config.endpoint.v3.ClusterLoadAssignment',
};

/** Options of {@link fetchProxyConfig}. */
export interface FetchOptions {
  /** `host:port` of the ADS server. */
  readonly address: string;
  readonly node: TestNode;
  /** How long the server must stay silent (every subscription answered) before the config counts as final. Default 2000 ms. */
  readonly quietMs?: number;
  /** Overall deadline. Default 60 s. */
  readonly deadlineMs?: number;
}

const HCM = 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';

/** Route configuration names the listeners' HTTP connection managers ask for over RDS. */
export function rdsNames(listeners: readonly Obj[]): string[] {
  const out = new Set<string>();
  const visit = (chains: unknown): void => {
    for (const fc of Array.isArray(chains) ? (chains as Obj[]) : []) {
      for (const f of (fc['filters'] as Obj[] | undefined) ?? []) {
        const tc = f['typedConfig'] as Obj | undefined;
        const rds = tc?.['@type'] === HCM ? (tc['rds'] as Obj | undefined) : undefined;
        if (typeof rds?.['routeConfigName'] === 'string') out.add(rds['routeConfigName']);
      }
    }
  };
  for (const l of listeners) {
    visit(l['filterChains']);
    if (l['defaultFilterChain']) visit([l['defaultFilterChain']]);
  }
  return [...out].sort();
}

/** Load assignment names the EDS clusters ask for. */
export function edsNames(clusters: readonly Obj[]): string[] {
  const out = new Set<string>();
  for (const c of clusters) {
    if (c['type'] !== 'EDS') continue;
    const svc = (c['edsClusterConfig'] as Obj | undefined)?.['serviceName'];
    out.add(typeof svc === 'string' && svc !== '' ? svc : String(c['name']));
  }
  return [...out].sort();
}

function decoded(client: AdsClient, typeUrl: string): Obj[] {
  const r = client.latest(typeUrl);
  return (r?.resources ?? []).map((x) => toJson(MESSAGE[typeUrl]!, x.body, { fieldNames: 'json' }) as Obj);
}

/** See the file comment. Rejects when the stream ends, a type is never answered, or the deadline passes. */
export async function fetchProxyConfig(opts: FetchOptions): Promise<ProxyConfig> {
  const quietMs = opts.quietMs ?? 2000;
  const deadline = Date.now() + (opts.deadlineMs ?? 60_000);
  const client = new AdsClient({ address: opts.address, node: opts.node, autoAck: true, waitMs: opts.deadlineMs ?? 60_000 });
  try {
    client.subscribe(TYPE_URL.cluster);
    client.subscribe(TYPE_URL.listener);
    const asked = new Map<string, string>([
      [TYPE_URL.route, ''],
      [TYPE_URL.endpoint, ''],
    ]);
    let seen = -1;
    let quietSince = Date.now();
    for (;;) {
      const ended = client.stream.ended;
      if (ended) throw new Error(`${opts.address}: the ADS stream ended (code ${ended.code}: ${ended.details})`);
      const n = client.responses.length;
      if (n !== seen) {
        seen = n;
        quietSince = Date.now();
        // NOTE: as Envoy, ask for what the newest listeners and clusters name; a changed set is a new request.
        const want: [string, string[]][] = [
          [TYPE_URL.route, rdsNames(decoded(client, TYPE_URL.listener))],
          [TYPE_URL.endpoint, edsNames(decoded(client, TYPE_URL.cluster))],
        ];
        for (const [type, names] of want) {
          const key = names.join(',');
          if (names.length > 0 && asked.get(type) !== key) {
            asked.set(type, key);
            client.subscribe(type, names);
          }
        }
      }
      const answered = [TYPE_URL.listener, TYPE_URL.cluster, ...[...asked].filter(([, k]) => k !== '').map(([t]) => t)].every((t) => client.latest(t));
      if (answered && Date.now() - quietSince >= quietMs) break;
      if (Date.now() > deadline) {
        const got = [...new Set(client.responses.map((r) => r.typeUrl.split('.').pop()))].join(', ') || 'nothing';
        throw new Error(`${opts.address}: no complete configuration within the deadline (received: ${got})`);
      }
      await delay(100);
    }
    return {
      listeners: decoded(client, TYPE_URL.listener),
      clusters: decoded(client, TYPE_URL.cluster),
      routes: decoded(client, TYPE_URL.route),
      endpoints: decoded(client, TYPE_URL.endpoint),
    };
  } finally {
    client.close();
  }
}
