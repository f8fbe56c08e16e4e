/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
import assert from 'node:assert/strict';
import { buildSidecarClusters } from './cluster-builder.js';
import { encode } from '../../protos/codec.js';
import { validate } from '../../protos/validate.js';
import { ENVOY } from './sidecar-names.js';
import { proxyFromNode } from '../../../core/index.js';
import { HEADLESS_SERVICES, sidecarAt, sidecarModel, sidecarNode, SIDECAR_MESH } from './testing/sidecar-mesh.js';

function clusters(yaml = SIDECAR_MESH, mesh = {}, edsForHeadless = false): Map<string, any> {
  const { proxy, snap } = sidecarAt(sidecarModel(yaml, mesh));
  return new Map(buildSidecarClusters(snap.pushContext, proxy, { endpoints: snap.endpoints, edsForHeadless }).map((c) => [c['name'] as string, c]));
}

const REVIEWS = 'reviews.default.svc.cluster.local';
const tlsOf = (c: any): any => c.transportSocket.typedConfig;

describe('sidecar cluster builder', () => {
  const all = clusters();
  const cases: { name: string; cluster: string; check: (c: any) => void }[] = [
    {
      name: 'given no minHealthPercent should turn Envoy panic mode off (healthyPanicThreshold 0, as istiod) on EDS and DNS clusters',
      cluster: `outbound|9080||${REVIEWS}`,
      check: (c) => {
        assert.deepEqual(c.commonLbConfig.healthyPanicThreshold, { value: 0 });
        assert.deepEqual(all.get('outbound|443||api.example.com').commonLbConfig.healthyPanicThreshold, { value: 0 });
      },
    },
    {
      name: 'given a service port should serve an EDS cluster over ADS named outbound|<port>||<host>',
      cluster: `outbound|9080||${REVIEWS}`,
      check: (c) => {
        assert.equal(c.type, 'EDS');
        assert.deepEqual(c.edsClusterConfig, { edsConfig: { ads: {}, resourceApiVersion: 'V3', initialFetchTimeout: { seconds: 0, nanos: 0 } }, serviceName: `outbound|9080||${REVIEWS}` });
      },
    },
    {
      name: 'given a DestinationRule connection pool should set circuit breakers, connect timeout and idle timeout',
      cluster: `outbound|9080||${REVIEWS}`,
      check: (c) => {
        const t = c.circuitBreakers.thresholds[0];
        assert.deepEqual([t.maxConnections.value, t.maxPendingRequests.value, t.maxRequests.value], [100, 10, 4294967295]);
        assert.deepEqual(c.connectTimeout, { seconds: 3, nanos: 0 });
        const opts = c.typedExtensionProtocolOptions['envoy.extensions.upstreams.http.v3.HttpProtocolOptions'];
        assert.deepEqual(opts.commonHttpProtocolOptions.idleTimeout, { seconds: 30, nanos: 0 });
        assert.deepEqual(opts.explicitHttpConfig, { httpProtocolOptions: {} });
      },
    },
    {
      name: 'given outlier detection should eject on consecutive 5xx with the interval, ejection time and percent',
      cluster: `outbound|9080|v1|${REVIEWS}`,
      check: (c) => {
        assert.equal(c.outlierDetection.consecutive_5xx.value, 5);
        assert.equal(c.outlierDetection.enforcingConsecutive_5xx.value, 100);
        assert.deepEqual(c.outlierDetection.interval, { seconds: 10, nanos: 0 });
        assert.equal(c.outlierDetection.maxEjectionPercent.value, 50);
      },
    },
    {
      name: 'given MESH_MUTUAL should originate mTLS with SDS default and ROOTCA, Istio SNI and the endpoints identity',
      cluster: `outbound|9080|v1|${REVIEWS}`,
      check: (c) => {
        const tls = tlsOf(c);
        assert.equal(tls.sni, `outbound_.9080_.v1_.${REVIEWS}`);
        assert.equal(tls.commonTlsContext.tlsCertificateSdsSecretConfigs[0].name, 'default');
        assert.equal(tls.commonTlsContext.tlsCertificateSdsSecretConfigs[0].sdsConfig.apiConfigSource.grpcServices[0].envoyGrpc.clusterName, 'sds-grpc');
        assert.equal(tls.commonTlsContext.combinedValidationContext.validationContextSdsSecretConfig.name, 'ROOTCA');
        assert.deepEqual(tls.commonTlsContext.combinedValidationContext.defaultValidationContext.matchSubjectAltNames, [{ exact: 'spiffe://cluster.local/ns/default/sa/reviews' }]);
        assert.deepEqual(tls.commonTlsContext.alpnProtocols, ['mesh-peer-exchange', 'mesh']);
      },
    },
    { name: 'given no load balancer should use LEAST_REQUEST as Istio does', cluster: `outbound|9080|v1|${REVIEWS}`, check: (c) => assert.equal(c.lbPolicy, 'LEAST_REQUEST') },
    {
      name: 'given a subset with consistent hash should use RING_HASH with the default ring size',
      cluster: `outbound|9080|v2|${REVIEWS}`,
      check: (c) => {
        assert.equal(c.lbPolicy, 'RING_HASH');
        assert.equal(c.ringHashLbConfig.minimumRingSize.value, 1024);
      },
    },
    {
      name: 'given a mesh service without DestinationRule TLS should use auto mTLS socket matches on tlsMode',
      cluster: 'outbound|9080||productpage.default.svc.cluster.local',
      check: (c) => {
        assert.equal(c.transportSocket, undefined);
        assert.deepEqual(c.transportSocketMatches.map((m: any) => m.name), ['tlsMode-mesh', 'tlsMode-disabled']);
        assert.deepEqual(c.transportSocketMatches[0].match, { fields: { tlsMode: { stringValue: 'mesh' } } });
      },
    },
    {
      name: 'given a DNS ServiceEntry should use STRICT_DNS with the host as its endpoint',
      cluster: 'outbound|443||api.example.com',
      check: (c) => {
        assert.equal(c.type, 'STRICT_DNS');
        assert.deepEqual(c.loadAssignment.endpoints[0].lbEndpoints[0].endpoint.address.socketAddress, { address: 'api.example.com', portValue: 443 });
        assert.equal(c.transportSocketMatches, undefined, 'no auto mTLS to MESH_EXTERNAL');
      },
    },
    { name: 'given any mesh should serve PassthroughCluster as ORIGINAL_DST', cluster: 'PassthroughCluster', check: (c) => assert.equal(c.type, 'ORIGINAL_DST') },
    { name: 'given any mesh should serve BlackHoleCluster as STATIC without endpoints', cluster: 'BlackHoleCluster', check: (c) => assert.deepEqual([c.type, c.loadAssignment], ['STATIC', undefined]) },
    {
      name: 'given a DestinationRule should name it in the cluster provenance metadata',
      cluster: `outbound|9080|v1|${REVIEWS}`,
      check: (c) => {
        const f = c.metadata.filterMetadata.mesh.fields;
        assert.equal(f.config, undefined, 'no Istio config path: sources name the rule with its generation');
        assert.deepEqual(f.sources.listValue.values, [{ stringValue: 'DestinationRule/default/reviews@2' }]);
        assert.equal(f.subset.stringValue, 'v1');
      },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const cl = all.get(c.cluster);
      assert.ok(cl, `cluster ${c.cluster} among ${[...all.keys()].join(', ')}`);
      c.check(cl);
    });
  }

  it('given load balancer simple ROUND_ROBIN with warmup and maglev hashing should set them', () => {
    const yaml = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: pp, namespace: default }
spec:
  host: productpage.default.svc.cluster.local
  trafficPolicy: { loadBalancer: { simple: ROUND_ROBIN, warmupDurationSecs: 60s }, tls: { mode: DISABLE } }
  subsets: [{ name: m, labels: { app: productpage }, trafficPolicy: { loadBalancer: { consistentHash: { useSourceIp: true, maglev: { tableSize: 65537 } } } } }]
`;
    const got = clusters(yaml);
    const rr = got.get('outbound|9080||productpage.default.svc.cluster.local');
    assert.equal(rr.lbPolicy, 'ROUND_ROBIN');
    assert.deepEqual(rr.roundRobinLbConfig.slowStartConfig.slowStartWindow, { seconds: 60, nanos: 0 });
    assert.equal(rr.transportSocket, undefined, 'tls DISABLE: plaintext');
    assert.equal(rr.transportSocketMatches, undefined, 'tls DISABLE wins over auto mTLS');
    const mg = got.get('outbound|9080|m|productpage.default.svc.cluster.local');
    assert.deepEqual([mg.lbPolicy, mg.maglevLbConfig.tableSize.value], ['MAGLEV', 65537]);
  });

  it('given warmup as an object (over warmupDurationSecs) and http2KeepAlive should set slow start and HTTP/2 PINGs as istiod', () => {
    const dr = (lb: string, pool: string): string => `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: pp, namespace: default }
spec:
  host: productpage.default.svc.cluster.local
  trafficPolicy:
    loadBalancer: ${lb}
    connectionPool: ${pool}
    tls: { mode: DISABLE }
`;
    const name = 'outbound|9080||productpage.default.svc.cluster.local';
    const full = clusters(dr('{ simple: LEAST_REQUEST, warmup: { duration: 90s, minimumPercent: 25, aggression: 2 }, warmupDurationSecs: 10s }', '{ http: { h2UpgradePolicy: UPGRADE, http2KeepAlive: { interval: 30s, timeout: 5s } } }')).get(name);
    assert.deepEqual(full.leastRequestLbConfig.slowStartConfig, { slowStartWindow: { seconds: 90, nanos: 0 }, aggression: { defaultValue: 2, runtimeKey: '(' }, minWeightPercent: { value: 25 } });
    const h2 = full.typedExtensionProtocolOptions['envoy.extensions.upstreams.http.v3.HttpProtocolOptions'].value ?? full.typedExtensionProtocolOptions['envoy.extensions.upstreams.http.v3.HttpProtocolOptions'];
    assert.deepEqual(JSON.parse(JSON.stringify(h2)).explicitHttpConfig.http2ProtocolOptions.connectionKeepalive, { interval: { seconds: 30, nanos: 0 }, timeout: { seconds: 5, nanos: 0 } });
    const defaults = clusters(dr('{ simple: ROUND_ROBIN, warmup: { duration: 1ms } }', '{ http: { http2KeepAlive: { interval: 30s } } }')).get(name);
    assert.deepEqual(defaults.roundRobinLbConfig.slowStartConfig, { slowStartWindow: { seconds: 0, nanos: 1_000_000 }, aggression: { defaultValue: 1, runtimeKey: '(' }, minWeightPercent: { value: 10 } });
    const opts = defaults.typedExtensionProtocolOptions?.['envoy.extensions.upstreams.http.v3.HttpProtocolOptions'];
    assert.ok(!JSON.stringify(opts ?? {}).includes('connectionKeepalive'), 'HTTP/1.1 upstream: no HTTP/2 PINGs');
  });

  it('given a Sidecar-less proxy in another namespace should not see services exported only to their namespace', () => {
    const yaml = SIDECAR_MESH.replace('addresses: [10.96.0.30]', 'addresses: [10.96.0.30]\n  exportTo: ["."]');
    assert.equal(clusters(yaml).has('outbound|5432||db.data.svc.cluster.local'), false);
    assert.equal(clusters().has('outbound|5432||db.data.svc.cluster.local'), true);
  });

  const ods: { name: string; od: string; want: unknown }[] = [
    { name: 'given outlier detection without consecutive5xxErrors should leave the 5xx ejection at Envoy\'s default (as istiod)', od: '{ consecutiveGatewayErrors: 2, interval: 5s }', want: undefined },
    { name: 'given consecutive5xxErrors 0 should turn the 5xx ejection off', od: '{ consecutive5xxErrors: 0, interval: 5s }', want: { value: 0 } },
  ];
  for (const c of ods) {
    it(c.name, () => {
      const yaml = SIDECAR_MESH.replace('outlierDetection: { consecutive5xxErrors: 5, interval: 10s, baseEjectionTime: 30s, maxEjectionPercent: 50 }', `outlierDetection: ${c.od}`);
      assert.notEqual(yaml, SIDECAR_MESH);
      const od = clusters(yaml).get(`outbound|9080||${REVIEWS}`).outlierDetection;
      assert.deepEqual(od.enforcingConsecutive_5xx, c.want);
      assert.equal(od.consecutive_5xx, undefined);
    });
  }

  it('given a DNS ServiceEntry without endpoints and a targetPort should resolve the host on the targetPort (as istiod)', () => {
    const yaml = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: secure, namespace: default }
spec:
  hosts: [secure.example.org]
  location: MESH_EXTERNAL
  ports: [{ number: 80, name: http, protocol: HTTP, targetPort: 443 }]
  resolution: DNS
`;
    const la = clusters(yaml).get('outbound|80||secure.example.org').loadAssignment;
    assert.deepEqual(la.endpoints[0].lbEndpoints[0].endpoint.address.socketAddress, { address: 'secure.example.org', portValue: 443 });
  });

  describe('PILOT_ENABLE_EDS_FOR_HEADLESS_SERVICES', () => {
    const yaml = `${SIDECAR_MESH}
---
${HEADLESS_SERVICES}`;
    const CASSANDRA = 'outbound|9042||cassandra.default.svc.cluster.local';
    const LEGACY = 'outbound|7072||legacy-none.default.svc.cluster.local';
    const eds = { edsConfig: { ads: {}, resourceApiVersion: 'V3', initialFetchTimeout: { seconds: 0, nanos: 0 } }, serviceName: CASSANDRA };
    const cases: { name: string; flag: boolean; cluster: string; want: { type: string; lbPolicy: string; edsClusterConfig?: unknown } }[] = [
      { name: 'given the flag off should build a headless orchestrator Service as ORIGINAL_DST (istiod\'s default)', flag: false, cluster: CASSANDRA, want: { type: 'ORIGINAL_DST', lbPolicy: 'CLUSTER_PROVIDED' } },
      { name: 'given the flag on should build a headless orchestrator Service as EDS over ADS with the default LEAST_REQUEST', flag: true, cluster: CASSANDRA, want: { type: 'EDS', lbPolicy: 'LEAST_REQUEST', edsClusterConfig: eds } },
      { name: 'given the flag on should keep a ServiceEntry with resolution NONE ORIGINAL_DST (istiod applies it to the orchestrator registry only)', flag: true, cluster: LEGACY, want: { type: 'ORIGINAL_DST', lbPolicy: 'CLUSTER_PROVIDED' } },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const got = clusters(yaml, {}, c.flag).get(c.cluster);
        assert.deepEqual({ type: got.type, lbPolicy: got.lbPolicy, ...(got.edsClusterConfig ? { edsClusterConfig: got.edsClusterConfig } : {}) }, c.want);
      });
    }

    it('given the flag on and a router (gateway) should build EDS for both, as without it', () => {
      const { snap } = sidecarAt(sidecarModel(yaml));
      const router = proxyFromNode(sidecarNode({ type: 'router', id: 'router~10.0.0.9~gw-1.default~default.svc.cluster.local' }));
      for (const flag of [false, true]) {
        const got = new Map(buildSidecarClusters(snap.pushContext, router, { endpoints: snap.endpoints, edsForHeadless: flag }).map((x) => [x['name'] as string, x]));
        assert.deepEqual([got.get(CASSANDRA)?.['type'], got.get(LEGACY)?.['type']], ['EDS', 'EDS'], `flag ${String(flag)}`);
      }
    });
  });

  describe('ENABLE_AUTO_SNI (istiod setAutoSniAndAutoSanValidation)', () => {
    const HP = 'envoy.extensions.upstreams.http.v3.HttpProtocolOptions';
    const yaml = (tls: string): string => `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: ext, namespace: default }
spec:
  hosts: [ext.example.com]
  location: MESH_EXTERNAL
  ports: [{ number: 80, name: http, protocol: HTTP }, { number: 81, name: grpc, protocol: GRPC }, { number: 5000, name: tcp, protocol: TCP }]
  resolution: DNS
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: ext, namespace: default }
spec:
  host: ext.example.com
  trafficPolicy: { tls: ${tls} }
`;
    const built = (tls: string, autoSni?: boolean): Map<string, any> => {
      const { proxy, snap } = sidecarAt(sidecarModel(yaml(tls)));
      const opts = { endpoints: snap.endpoints, ...(autoSni !== undefined ? { autoSni } : {}) };
      return new Map(buildSidecarClusters(snap.pushContext, proxy, opts).map((c) => [c['name'] as string, c]));
    };
    const upstream = (c: any): unknown => c.typedExtensionProtocolOptions?.[HP]?.upstreamHttpProtocolOptions;
    const both = { autoSni: true, autoSanValidation: true };
    const cases: { name: string; tls: string; autoSni?: boolean; want: unknown }[] = [
      { name: 'given SIMPLE without sni and the flag unset should set auto_sni and auto_san_validation and no fixed SNI (istiod default)', tls: '{ mode: SIMPLE }', want: both },
      { name: 'given MUTUAL without sni and the flag on should set both and no fixed SNI', tls: '{ mode: MUTUAL, clientCertificate: /c.pem, privateKey: /k.pem }', autoSni: true, want: both },
      { name: 'given SIMPLE without sni but with subjectAltNames should set auto_sni only', tls: '{ mode: SIMPLE, subjectAltNames: [ext.example.com] }', autoSni: true, want: { autoSni: true } },
      { name: 'given SIMPLE without sni and insecureSkipVerify should set auto_sni only', tls: '{ mode: SIMPLE, insecureSkipVerify: true }', autoSni: true, want: { autoSni: true } },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const cl = built(c.tls, c.autoSni).get('outbound|80||ext.example.com');
        assert.deepEqual([upstream(cl), tlsOf(cl).sni], [c.want, undefined]);
      });
    }

    it('given the flag off should set neither and no SNI (istiod before auto SNI); given sni or MESH_MUTUAL should set neither with the flag on', () => {
      const at = (tls: string, autoSni: boolean): unknown[] => {
        const cl = built(tls, autoSni).get('outbound|80||ext.example.com');
        return [upstream(cl), tlsOf(cl).sni];
      };
      assert.deepEqual(at('{ mode: SIMPLE }', false), [undefined, undefined]);
      assert.deepEqual(at('{ mode: MUTUAL, clientCertificate: /c.pem, privateKey: /k.pem }', false), [undefined, undefined]);
      assert.deepEqual(at('{ mode: SIMPLE, sni: fixed.example.com }', true), [undefined, 'fixed.example.com']);
      assert.deepEqual(at('{ mode: MESH_MUTUAL }', true), [undefined, 'outbound_.80_._.ext.example.com']);
    });

    it('given SIMPLE without sni should keep HTTP/2 on a GRPC port and add an HTTP/1.1 upstream to a TCP port (as istiod), and pass protoc-gen-validate', function () {
      this.timeout(60_000);
      const got = built('{ mode: SIMPLE }');
      const grpc = got.get('outbound|81||ext.example.com').typedExtensionProtocolOptions[HP];
      assert.deepEqual([grpc.upstreamHttpProtocolOptions, Object.keys(grpc.explicitHttpConfig)], [both, ['http2ProtocolOptions']]);
      const tcp = got.get('outbound|5000||ext.example.com').typedExtensionProtocolOptions[HP];
      assert.deepEqual([tcp.upstreamHttpProtocolOptions, tcp.explicitHttpConfig], [both, { httpProtocolOptions: {} }]);
      for (const name of ['outbound|80||ext.example.com', 'outbound|81||ext.example.com', 'outbound|5000||ext.example.com']) {
        assert.deepEqual(validate(ENVOY.cluster, encode(ENVOY.cluster, got.get(name))), [], name);
      }
    });

    describe('VERIFY_CERTIFICATE_AT_CLIENT (istiod: caCertificates "system")', () => {
      const common = (tls: string, verifyCertAtClient?: boolean): any => {
        const { proxy, snap } = sidecarAt(sidecarModel(yaml(tls)));
        const opts = { endpoints: snap.endpoints, ...(verifyCertAtClient !== undefined ? { verifyCertAtClient } : {}) };
        const c = buildSidecarClusters(snap.pushContext, proxy, opts).find((x) => x['name'] === 'outbound|80||ext.example.com') as any;
        return c.transportSocket.typedConfig.commonTlsContext;
      };
      it('given SIMPLE without caCertificates and the flag unset (default true) should verify against the system trust bundle over SDS', () => {
        const got = common('{ mode: SIMPLE }');
        assert.equal(got.combinedValidationContext.validationContextSdsSecretConfig.name, 'file-root:system');
        assert.deepEqual(Object.keys(got.combinedValidationContext.defaultValidationContext), []);
      });
      it('given subjectAltNames should match them against the system-verified certificate', () => {
        const got = common('{ mode: SIMPLE, subjectAltNames: [ext.example.com] }', true);
        assert.deepEqual(got.combinedValidationContext.defaultValidationContext, { matchSubjectAltNames: [{ exact: 'ext.example.com' }] });
      });
      it('given SIMPLE and MUTUAL origination should advertise h2 on the HTTP/2 (GRPC) cluster only (istiod isHttp2Cluster)', () => {
        for (const tls of ['{ mode: SIMPLE }', '{ mode: MUTUAL, clientCertificate: /c.pem, privateKey: /k.pem }']) {
          const { proxy, snap } = sidecarAt(sidecarModel(yaml(tls)));
          const byName = new Map(buildSidecarClusters(snap.pushContext, proxy, { endpoints: snap.endpoints }).map((c) => [c['name'] as string, c as any]));
          const alpn = (name: string): unknown => byName.get(name).transportSocket.typedConfig.commonTlsContext.alpnProtocols;
          assert.deepEqual([alpn('outbound|81||ext.example.com'), alpn('outbound|80||ext.example.com'), alpn('outbound|5000||ext.example.com')], [['h2'], undefined, undefined], tls);
          assert.deepEqual(validate(ENVOY.cluster, encode(ENVOY.cluster, byName.get('outbound|81||ext.example.com'))), []);
        }
      });
      it('given a credentialName in a DestinationRule without a workloadSelector should originate no TLS from a sidecar (istiod), with one or from configmap:// should', () => {
        const socket = (tls: string, selector = ''): unknown => {
          const { proxy, snap } = sidecarAt(sidecarModel(yaml(tls).replace('  host: ext.example.com\n', `  host: ext.example.com\n${selector}`)));
          const c = buildSidecarClusters(snap.pushContext, proxy, { endpoints: snap.endpoints }).find((x) => x['name'] === 'outbound|80||ext.example.com') as any;
          return c.transportSocket?.typedConfig.commonTlsContext.combinedValidationContext?.validationContextSdsSecretConfig.name;
        };
        assert.equal(socket('{ mode: SIMPLE, credentialName: ext-cert }'), undefined);
        assert.equal(socket('{ mode: MUTUAL, credentialName: ext-cert }'), undefined);
        assert.equal(socket('{ mode: SIMPLE, credentialName: ext-cert }', '  workloadSelector: { matchLabels: { app: productpage } }\n'), 'kubernetes://ext-cert-cacert');
        assert.notEqual(socket('{ mode: SIMPLE, credentialName: "configmap://ext-ca" }'), undefined, 'a configmap:// credential is not privileged: kept');
      });
      it('given the flag off, insecureSkipVerify or caCertificates should not name the system bundle', () => {
        assert.equal(common('{ mode: SIMPLE }', false).combinedValidationContext, undefined);
        assert.equal(common('{ mode: SIMPLE, insecureSkipVerify: true }', true).combinedValidationContext, undefined);
        const files = common('{ mode: SIMPLE, caCertificates: /etc/certs/ca.pem }', true);
        assert.deepEqual([files.validationContext, files.combinedValidationContext.validationContextSdsSecretConfig.name], [undefined, 'file-root:/etc/certs/ca.pem']);
      });
    });
  });
});
