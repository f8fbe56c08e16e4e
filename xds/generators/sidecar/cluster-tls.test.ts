/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
import assert from 'node:assert/strict';
import { buildSidecarClusters } from './cluster-builder.js';
import { meshMtlsSocket, originationSocket } from './cluster-tls.js';
import { checkConsistency } from './consistency-checker.js';
import { encode } from '../../protos/codec.js';
import { validate } from '../../protos/validate.js';
import { ENVOY } from './sidecar-names.js';
import type { ClientTLSSettings } from '../../../crds/index.js';
import { HEADLESS_SERVICES, sidecarAt, sidecarModel, SIDECAR_MESH } from './testing/sidecar-mesh.js';

type Obj = Record<string, any>;
const common = (tls: ClientTLSSettings, verifyAtClient?: boolean): Obj => (originationSocket(tls, verifyAtClient === undefined ? {} : { verifyAtClient }) as Obj)['typedConfig'].commonTlsContext;
const certNames = (c: Obj): unknown => c['tlsCertificateSdsSecretConfigs']?.map((x: Obj) => x['name']);
const rootName = (c: Obj): unknown => c['combinedValidationContext']?.validationContextSdsSecretConfig.name;

/** The sidecar mesh plus an external TLS service `ext.example.com` (DNS) whose DestinationRule has `tls`. */
function extMesh(tls: string): string {
  return `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: ext, namespace: default }
spec:
  hosts: [ext.example.com]
  location: MESH_EXTERNAL
  ports: [{ number: 443, name: tls, protocol: TLS }]
  resolution: DNS
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: ext, namespace: default }
spec:
  host: ext.example.com
  trafficPolicy: { tls: ${tls} }
`;
}

describe('cluster TLS from files over SDS (istiod constructUpstreamTLS)', () => {
  const cases: { name: string; tls: ClientTLSSettings; verifyAtClient?: boolean; certs: unknown; root: unknown; crl?: string }[] = [
    {
      name: 'given MUTUAL with file paths should name the key pair file-cert:<chain>~<key> and the CA file-root:<ca>, no inline filename',
      tls: { mode: 'MUTUAL', clientCertificate: '/etc/certs/client.pem', privateKey: '/etc/certs/client.key', caCertificates: '/etc/certs/ca.pem' },
      certs: ['file-cert:/etc/certs/client.pem~/etc/certs/client.key'],
      root: 'file-root:/etc/certs/ca.pem',
    },
    { name: 'given SIMPLE with caCertificates should verify with file-root:<ca>', tls: { mode: 'SIMPLE', caCertificates: '/etc/certs/ca.pem' }, certs: undefined, root: 'file-root:/etc/certs/ca.pem' },
    { name: 'given MUTUAL without caCertificates should verify with the system bundle file-root:system', tls: { mode: 'MUTUAL', clientCertificate: '/c.pem', privateKey: '/k.pem' }, certs: ['file-cert:/c.pem~/k.pem'], root: 'file-root:system' },
    { name: 'given insecureSkipVerify should still send the client pair and verify nothing', tls: { mode: 'MUTUAL', clientCertificate: '/c.pem', privateKey: '/k.pem', caCertificates: '/ca.pem', insecureSkipVerify: true }, certs: ['file-cert:/c.pem~/k.pem'], root: undefined },
    { name: 'given VERIFY_CERTIFICATE_AT_CLIENT off and no CA should verify nothing', tls: { mode: 'SIMPLE' }, verifyAtClient: false, certs: undefined, root: undefined },
    { name: 'given caCrl should keep the CRL as a file Envoy reads beside the SDS root', tls: { mode: 'SIMPLE', caCertificates: '/ca.pem', caCrl: '/crl.pem' }, certs: undefined, root: 'file-root:/ca.pem', crl: '/crl.pem' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = common(c.tls, c.verifyAtClient);
      assert.deepEqual([certNames(got), rootName(got), got['tlsCertificates'], got['validationContext']], [c.certs, c.root, undefined, undefined]);
      assert.deepEqual(got['combinedValidationContext']?.defaultValidationContext.crl, c.crl === undefined ? undefined : { filename: c.crl });
    });
  }

  it('given a DestinationRule with MUTUAL file paths should build a cluster whose secrets the agent serves (consistency) and that passes protoc-gen-validate', function () {
    this.timeout(60_000);
    const yaml = extMesh('{ mode: MUTUAL, clientCertificate: /etc/certs/client.pem, privateKey: /etc/certs/client.key, caCertificates: /etc/certs/ca.pem, subjectAltNames: [ext.example.com] }');
    const { proxy, snap } = sidecarAt(sidecarModel(yaml));
    const clusters = buildSidecarClusters(snap.pushContext, proxy, { endpoints: snap.endpoints }) as Obj[];
    const c = clusters.find((x) => x['name'] === 'outbound|443||ext.example.com')!;
    const t = c['transportSocket'].typedConfig.commonTlsContext;
    assert.deepEqual([certNames(t), rootName(t), t.combinedValidationContext.defaultValidationContext.matchSubjectAltNames], [
      ['file-cert:/etc/certs/client.pem~/etc/certs/client.key'],
      'file-root:/etc/certs/ca.pem',
      [{ exact: 'ext.example.com' }],
    ]);
    assert.deepEqual(checkConsistency({ listeners: [], routes: [], clusters: [c], endpoints: [] }), []);
    assert.deepEqual(validate(ENVOY.cluster, encode(ENVOY.cluster, c)), []);
  });
});

describe('auto mTLS to passthrough targets (istiod BestEffortInferServiceMTLSMode)', () => {
  const yaml = `${SIDECAR_MESH}
---
${HEADLESS_SERVICES}
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: meshed-none, namespace: default }
spec:
  hosts: [meshed-none.default.svc.cluster.local]
  location: MESH_INTERNAL
  ports: [{ number: 7073, name: tcp, protocol: TCP }]
  resolution: NONE
  workloadSelector: { labels: { app: meshed-none } }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: meshed-none-0, namespace: default }
spec: { address: 10.1.0.9, labels: { app: meshed-none, security.mesh.io/tlsMode: mesh }, serviceAccount: meshed }
`;
  const { proxy, snap } = sidecarAt(sidecarModel(yaml));
  const byName = new Map((buildSidecarClusters(snap.pushContext, proxy, { endpoints: snap.endpoints }) as Obj[]).map((c) => [c['name'] as string, c]));
  const shape = (name: string): unknown => {
    const c = byName.get(name)!;
    return [c['type'], c['transportSocket'] ? rootName(c['transportSocket'].typedConfig.commonTlsContext) : undefined, c['transportSocketMatches']?.length];
  };
  const cases = [
    { name: 'given a headless service whose endpoints all take mesh mTLS should send mTLS as a plain transport socket on its ORIGINAL_DST cluster', cluster: 'outbound|7073||meshed-none.default.svc.cluster.local', want: ['ORIGINAL_DST', 'ROOTCA', undefined] },
    { name: 'given a headless service with an endpoint without a sidecar should send no TLS', cluster: 'outbound|9042||cassandra.default.svc.cluster.local', want: ['ORIGINAL_DST', undefined, undefined] },
    { name: 'given a headless service without endpoints should send no TLS', cluster: 'outbound|7072||legacy-none.default.svc.cluster.local', want: ['ORIGINAL_DST', undefined, undefined] },
    { name: 'given a service with a VIP should keep the auto mTLS socket matches', cluster: 'outbound|5432||db.data.svc.cluster.local', want: ['EDS', undefined, 2] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(shape(c.cluster), c.want));
});

describe('upstream TLS parameters (istiod defaultUpstreamCommonTLSContext, applyTLSDefaults)', () => {
  const V12_13 = { tlsMinimumProtocolVersion: 'TLSv1_2', tlsMaximumProtocolVersion: 'TLSv1_3' };
  const TLS_DEFAULTS = { ecdhCurves: ['P-256', 'X25519'], cipherSuites: ['ECDHE-ECDSA-AES256-GCM-SHA384'] };
  const yaml = `${extMesh('{ mode: SIMPLE }')}---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: db, namespace: data }
spec:
  host: db.data.svc.cluster.local
  trafficPolicy: { tls: { mode: MUTUAL, clientCertificate: /c.pem, privateKey: /k.pem } }
`;
  const paramsOf = (socket: Obj | undefined): unknown => socket?.['typedConfig'].commonTlsContext.tlsParams;
  const clustersWith = (tlsDefaults?: typeof TLS_DEFAULTS): Map<string, Obj> => {
    const { proxy, snap } = sidecarAt(sidecarModel(yaml, tlsDefaults ? { tlsDefaults } : {}));
    return new Map((buildSidecarClusters(snap.pushContext, proxy, { endpoints: snap.endpoints }) as Obj[]).map((c) => [c['name'] as string, c]));
  };
  const cases: { name: string; cluster: string; socket: (c: Obj) => Obj | undefined; plain: unknown; withDefaults: unknown }[] = [
    {
      name: 'given MESH_MUTUAL should send TLS 1.2-1.3 and no mesh tlsDefaults',
      cluster: 'outbound|9080||reviews.default.svc.cluster.local',
      socket: (c) => c['transportSocket'],
      plain: V12_13,
      withDefaults: V12_13,
    },
    {
      name: 'given auto mTLS should send TLS 1.2-1.3 on the mesh match and no mesh tlsDefaults',
      cluster: 'outbound|9080||productpage.default.svc.cluster.local',
      socket: (c) => (c['transportSocketMatches'] as Obj[]).find((m) => m['name'] === 'tlsMode-mesh')?.['transportSocket'],
      plain: V12_13,
      withDefaults: V12_13,
    },
    {
      name: 'given SIMPLE origination should send TLS 1.2-1.3 with the mesh tlsDefaults curves and ciphers',
      cluster: 'outbound|443||ext.example.com',
      socket: (c) => c['transportSocket'],
      plain: V12_13,
      withDefaults: { ...V12_13, ...TLS_DEFAULTS },
    },
    {
      name: 'given MUTUAL origination should send TLS 1.2-1.3 with the mesh tlsDefaults curves and ciphers',
      cluster: 'outbound|5432||db.data.svc.cluster.local',
      socket: (c) => c['transportSocket'],
      plain: V12_13,
      withDefaults: { ...V12_13, ...TLS_DEFAULTS },
    },
  ];
  const plain = clustersWith();
  const withDefaults = clustersWith(TLS_DEFAULTS);
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(paramsOf(c.socket(plain.get(c.cluster)!)), c.plain);
      assert.deepEqual(paramsOf(c.socket(withDefaults.get(c.cluster)!)), c.withDefaults);
      const built = withDefaults.get(c.cluster)!;
      assert.deepEqual(validate(ENVOY.cluster, encode(ENVOY.cluster, built)), [], 'passes protoc-gen-validate');
    });
  }

  it('given the mesh mTLS socket alone should carry the same parameters as istiod', () => {
    assert.deepEqual(paramsOf(meshMtlsSocket([], 'outbound_.80_._.a.b.svc.cluster.local')), V12_13);
  });
});
