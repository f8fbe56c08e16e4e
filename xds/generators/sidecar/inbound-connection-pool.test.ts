/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
/**
 * Sidecar `inboundConnectionPool` and `ingress[].connectionPool` on the inbound clusters (istiod's
 * InboundConnectionPoolForPort + applyConnectionPool inbound), built uncached and through the cached generator.
 */
import assert from 'node:assert/strict';
import { proxyFromNode, proxyRequestPush } from '../../../core/index.js';
import { decode } from '../../protos/codec.js';
import { validate } from '../../protos/validate.js';
import { TYPE_URL } from '../../server/contracts.js';
import { checkConsistency } from './consistency-checker.js';
import { SidecarGenerator } from './sidecar-generator.js';
import { ENVOY } from './sidecar-names.js';
import { allSidecarResources, sidecarAt, sidecarModel, sidecarNode, SIDECAR_MESH } from './testing/sidecar-mesh.js';

const MAX = 4294967295;

/** productpage's Sidecar: `spec` as given (YAML flow mappings). */
const withSidecar = (spec: string): string => `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: Sidecar
metadata: { name: productpage-pool, namespace: default, generation: 2 }
spec:
  workloadSelector: { labels: { app: productpage } }
${spec}`;

const TOP = `  inboundConnectionPool:
    tcp: { maxConnections: 50, connectTimeout: 2s, maxConnectionDuration: 60s }
    http: { http1MaxPendingRequests: 20, http2MaxRequests: 30, maxRetries: 4, idleTimeout: 15s, maxRequestsPerConnection: 7 }
`;
const INGRESS = `${TOP}  ingress:
  - port: { number: 8080, protocol: HTTP, name: http-own }
    defaultEndpoint: 127.0.0.1:8081
    connectionPool: { tcp: { maxConnections: 5 }, http: { useClientProtocol: true } }
  - port: { number: 9090, protocol: TCP, name: tcp-top }
`;

function clusters(yaml: string): Map<string, any> {
  const { proxy, snap } = sidecarAt(sidecarModel(yaml));
  const cfg = allSidecarResources(proxy, snap);
  assert.deepEqual(checkConsistency(cfg), []);
  return new Map(cfg.clusters.map((c) => [c['name'] as string, c as any]));
}

/** What a connection pool shapes on a cluster. */
function shape(c: any): Record<string, unknown> {
  const t = c.circuitBreakers.thresholds[0];
  const http = c.typedExtensionProtocolOptions?.['envoy.extensions.upstreams.http.v3.HttpProtocolOptions'];
  return {
    limits: [t.maxConnections.value, t.maxPendingRequests.value, t.maxRequests.value, t.maxRetries.value],
    connectTimeout: c.connectTimeout,
    common: http?.commonHttpProtocolOptions,
    upstream: http ? Object.keys(http).filter((k) => k !== 'commonHttpProtocolOptions' && k !== '@type') : undefined,
  };
}

describe('Sidecar inboundConnectionPool and ingress connectionPool on inbound clusters', () => {
  const cases: { name: string; yaml: string; cluster: string; want: Record<string, unknown> }[] = [
    {
      name: 'given no Sidecar connection pool should keep the unlimited defaults and the mesh connect timeout',
      yaml: SIDECAR_MESH,
      cluster: 'inbound|9080||',
      want: { limits: [MAX, MAX, MAX, MAX], connectTimeout: { seconds: 10, nanos: 0 }, common: undefined, upstream: undefined },
    },
    {
      name: 'given inboundConnectionPool and no ingress should shape the service port inbound cluster (circuit breakers, timeouts, HTTP options)',
      yaml: withSidecar(TOP),
      cluster: 'inbound|9080||',
      want: {
        limits: [50, 20, 30, 4],
        connectTimeout: { seconds: 2, nanos: 0 },
        common: { idleTimeout: { seconds: 15, nanos: 0 }, maxRequestsPerConnection: { value: 7 }, maxConnectionDuration: { seconds: 60, nanos: 0 } },
        upstream: ['explicitHttpConfig'],
      },
    },
    {
      name: 'given an ingress listener with its own connectionPool should use it instead of inboundConnectionPool (per port overrides the top level)',
      yaml: withSidecar(INGRESS),
      cluster: 'inbound|8080||',
      want: { limits: [5, MAX, MAX, MAX], connectTimeout: { seconds: 10, nanos: 0 }, common: undefined, upstream: ['useDownstreamProtocolConfig'] },
    },
    {
      name: 'given an ingress listener without connectionPool should use inboundConnectionPool',
      yaml: withSidecar(INGRESS),
      cluster: 'inbound|9090||',
      want: {
        limits: [50, 20, 30, 4],
        connectTimeout: { seconds: 2, nanos: 0 },
        common: { idleTimeout: { seconds: 15, nanos: 0 }, maxRequestsPerConnection: { value: 7 }, maxConnectionDuration: { seconds: 60, nanos: 0 } },
        upstream: ['explicitHttpConfig'],
      },
    },
    {
      name: 'given zero limits and a TCP idle timeout should keep the unlimited defaults (as istiod) and take the TCP idle timeout',
      yaml: withSidecar(`  inboundConnectionPool: { tcp: { maxConnections: 0, idleTimeout: 5s }, http: { maxRetries: 0 } }\n`),
      cluster: 'inbound|9080||',
      want: { limits: [MAX, MAX, MAX, MAX], connectTimeout: { seconds: 10, nanos: 0 }, common: { idleTimeout: { seconds: 5, nanos: 0 } }, upstream: ['explicitHttpConfig'] },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = clusters(c.yaml).get(c.cluster);
      assert.ok(got, `cluster ${c.cluster}`);
      assert.deepEqual(shape(got), c.want);
      assert.deepEqual(validate('envoy.config.cluster.v3.Cluster', got), []);
    });
  }

  it('given a Sidecar connection pool should name the Sidecar on the inbound cluster it shaped, and not on the others', () => {
    const byName = clusters(withSidecar(INGRESS));
    const sources = (c: any): unknown => c?.metadata?.filterMetadata?.mesh?.fields?.sources?.listValue?.values?.map((v: any) => v.stringValue);
    assert.deepEqual(sources(byName.get('inbound|8080||')), ['Sidecar/default/productpage-pool@2']);
    assert.equal(byName.get('PassthroughCluster')?.metadata, undefined);
  });

  it('given the cached generator should serve the same inbound cluster bytes as the uncached build', async () => {
    const model = sidecarModel(withSidecar(INGRESS));
    const p = proxyFromNode(sidecarNode());
    const push = proxyRequestPush(model.snapshot);
    const cached = new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true, enableCdsCache: true });
    const plain = new SidecarGenerator({ sendUnhealthyEndpoints: false });
    const watch = { typeUrl: TYPE_URL.cluster, names: new Set<string>(), wildcard: true };
    const a = await cached.generate(p, watch, push);
    const b = await plain.generate(p, watch, push);
    const pick = (r: typeof a, name: string): Uint8Array | undefined => r.resources.find((x) => x.name === name)?.body;
    for (const name of ['inbound|8080||', 'inbound|9090||']) {
      assert.deepEqual(pick(a, name), pick(b, name), name);
      const thresholds = (decode(ENVOY.cluster, pick(a, name)!) as any).circuitBreakers.thresholds[0];
      assert.equal(thresholds.maxConnections.value, name === 'inbound|8080||' ? 5 : 50);
    }
  });
});
