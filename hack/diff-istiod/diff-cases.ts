/**
 * The differential check's inputs: the config files both servers get (examples/bookinfo-sidecar and
 * hack/diff-istiod/testdata), the sidecars that ask (one per namespace under test, each a WorkloadEntry
 * of the files so both servers know its services), and the requests simulated on each sidecar's
 * configuration from either server.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { TestNode } from '../../xds/testing/index.js';
import { renameForIstio } from '../bench/xds/istio-rename.js';
import type { LabelledRequest } from './compare-configs.js';

type Doc = Record<string, unknown>;

/** Files read, relative to the repository root. */
export const CONFIG_FILES = [
  'examples/bookinfo-sidecar/services.yaml',
  'examples/bookinfo-sidecar/workloads.yaml',
  'examples/bookinfo-sidecar/routing.yaml',
  'hack/diff-istiod/testdata/http-features.yaml',
  'hack/diff-istiod/testdata/scoped.yaml',
  'hack/diff-istiod/testdata/locality.yaml',
  'hack/diff-istiod/testdata/gateway.yaml',
  'hack/diff-istiod/testdata/more.yaml',
  'hack/diff-istiod/testdata/ingress-tls.yaml',
  'hack/diff-istiod/testdata/shared-port.yaml',
  'hack/diff-istiod/testdata/ipv6.yaml',
  'hack/diff-istiod/testdata/dr-selector.yaml',
  'hack/diff-istiod/testdata/sidecar-fields.yaml',
  'hack/diff-istiod/testdata/wildcard-dr.yaml',
  'hack/diff-istiod/testdata/dns-subsets.yaml',
  'hack/diff-istiod/testdata/same-host.yaml',
  'hack/diff-istiod/testdata/consistent-hash.yaml',
  'hack/diff-istiod/testdata/egress-ports.yaml',
] as const;

/**
 * Environment both servers run with: ENABLE_TLS_ON_SIDECAR_INGRESS for the Sidecar ingress TLS of
 * ingress-tls.yaml (it changes nothing where no Sidecar has ingress TLS); PILOT_ENABLE_REDIS_FILTER for the Redis
 * proxy and MAGLEV of more.yaml's REDIS port (it changes nothing where no port is REDIS).
 */
export const SERVER_ENV: Readonly<Record<string, string>> = { ENABLE_TLS_ON_SIDECAR_INGRESS: 'true', PILOT_ENABLE_REDIS_FILTER: 'true' };

/**
 * The listener options pass: the files again with the sidecar listener options both servers share set
 * away from their defaults (the HCM options are compared per listener). Not the headless pod listener
 * variable: istiod has no such switch any more (always on since 1.22).
 */
export const LISTENER_OPTIONS_ENV: Readonly<Record<string, string>> = {
  ...SERVER_ENV,
  PILOT_SIDECAR_USE_REMOTE_ADDRESS: 'true',
  PILOT_HTTP10: 'true',
  ENABLE_HCM_INTERNAL_NETWORKS: 'true',
  PILOT_ENABLE_ALPN_FILTER: 'false',
};

/** Namespaces the files use (the API server gets them, and istiod's own). */
export const NAMESPACES = ['default', 'data', 'diff-http', 'diff-scoped', 'diff-locality', 'diff-gw', 'diff-more', 'diff-ingress', 'diff-ports', 'diff-orch', 'diff-v6', 'diff-drsel', 'diff-sidecar', 'diff-egress', 'diff-none', 'diff-wild', 'diff-dup', 'diff-hash', 'diff-team-a', 'diff-team-b', 'diff-team-c', 'diff-team-d', 'diff-multi', 'diff-trim', 'diff-vsdest', 'diff-vsz', 'diff-vsb'] as const;

/** The documents of `CONFIG_FILES`, by file. */
export function readCaseDocs(repoRoot: string): { file: string; docs: Doc[] }[] {
  return CONFIG_FILES.map((file) => {
    const docs = parseAllDocuments(readFileSync(join(repoRoot, file), 'utf8'));
    const out: Doc[] = [];
    docs.forEach((d, i) => {
      if (d.errors.length > 0) throw new Error(`${file}: document ${i + 1}: ${d.errors[0]!.message}`);
      const v = d.toJS() as Doc | null;
      if (v) out.push(v);
    });
    return { file, docs: out };
  });
}

/**
 * A document as istiod reads it: renamed for Istio, and the root namespace's documents moved to istiod's
 * (meshd's root namespace is `mesh-system`, istiod's `istio-system`: each server's mesh-wide rules).
 */
export function istiodDoc(d: Doc): Doc {
  const r = renameForIstio(d);
  const meta = r['metadata'] as { namespace?: string } | undefined;
  return meta?.namespace === 'mesh-system' ? { ...r, metadata: { ...meta, namespace: 'istio-system' } } : r;
}

/** One sidecar of the check and the requests made from it. */
export interface DiffProxy {
  readonly name: string;
  /** The node as meshd expects it (the istiod node is this one renamed). */
  readonly node: TestNode;
  readonly requests: readonly LabelledRequest[];
}

/** A sidecar node; `ip` may list several addresses, comma-separated (INSTANCE_IPS), the first in the node id. */
function sidecarNode(o: { ns: string; pod: string; ip: string; app: string; sa: string; ports: number[]; locality?: TestNode['locality']; labels?: Record<string, string>; type?: 'sidecar' | 'router'; interception?: string }): TestNode {
  return {
    ...(o.locality ? { locality: o.locality } : {}),
    id: `${o.type ?? 'sidecar'}~${o.ip.split(',')[0]!}~${o.pod}.${o.ns}~${o.ns}.svc.cluster.local`,
    cluster: `${o.app}.${o.ns}`,
    metadata: {
      NAME: o.pod,
      NAMESPACE: o.ns,
      LABELS: { app: o.app, version: 'v1', 'security.mesh.io/tlsMode': 'mesh', ...o.labels },
      CLUSTER_ID: 'Kubernetes',
      INSTANCE_IPS: o.ip,
      SERVICE_ACCOUNT: o.sa,
      WORKLOAD_NAME: o.app,
      MESH_VERSION: '0.1.0',
      INTERCEPTION_MODE: o.interception ?? 'REDIRECT',
      POD_PORTS: JSON.stringify(o.ports.map((p) => ({ containerPort: p, protocol: 'TCP' }))),
    },
  };
}

const MTLS = { tls: true, alpn: ['mesh-peer-exchange', 'mesh'] } as const;
const http = (label: string, address: string, port: number, host: string, path = '/', more: Partial<LabelledRequest['request']> = {}): LabelledRequest => ({
  label,
  request: { direction: 'outbound', protocol: 'http', address, port, host, path, ...more },
});
const tcp = (label: string, address: string, port: number): LabelledRequest => ({ label, request: { direction: 'outbound', protocol: 'tcp', address, port } });
const tls = (label: string, address: string, port: number, sni: string): LabelledRequest => ({ label, request: { direction: 'outbound', protocol: 'tls', address, port, sni } });
const inbound = (label: string, address: string, port: number, more: Partial<LabelledRequest['request']>): LabelledRequest => ({
  label,
  request: { direction: 'inbound', address, port, host: `${address}:${port}`, path: '/', ...more },
});

/** The sidecars and their requests. */
export const DIFF_PROXIES: readonly DiffProxy[] = [
  {
    name: 'default/productpage-v1 (bookinfo)',
    node: { ...sidecarNode({ ns: 'default', pod: 'productpage-v1', ip: '10.0.0.1', app: 'productpage', sa: 'bookinfo-productpage', ports: [9080] }) },
    requests: [
      http('reviews as jason', '10.96.0.10', 9080, 'reviews:9080', '/reviews/1', { headers: { 'end-user': 'jason' } }),
      http('reviews as anyone', '10.96.0.10', 9080, 'reviews:9080', '/reviews/1'),
      http('reviews by FQDN', '10.96.0.10', 9080, 'reviews.default.svc.cluster.local:9080', '/'),
      http('ratings', '10.96.0.11', 9080, 'ratings:9080', '/ratings/1'),
      http('ratings by name.namespace', '10.96.0.11', 9080, 'ratings.default:9080', '/'),
      tcp('mysqldb (TCP)', '10.96.0.30', 3306),
      http('unknown host on a mesh port (ALLOW_ANY)', '93.184.216.34', 80, 'example.com', '/'),
      tcp('unknown address and port (ALLOW_ANY)', '93.184.216.34', 8443),
      inbound('inbound 9080 over mesh mTLS', '10.0.0.1', 9080, MTLS),
      inbound('inbound 9080 plaintext (STRICT)', '10.0.0.1', 9080, {}),
    ],
  },
  {
    name: 'diff-http/client-0 (VirtualService features)',
    node: sidecarNode({ ns: 'diff-http', pod: 'client-0', ip: '10.10.0.1', app: 'client', sa: 'client', ports: [8000] }),
    requests: [
      http('uri exact /exact', '10.96.1.1', 8080, 'web:8080', '/exact'),
      http('uri prefix /v2', '10.96.1.1', 8080, 'web:8080', '/v2/x'),
      http('uri regex /re/42', '10.96.1.1', 8080, 'web:8080', '/re/42'),
      http('uri regex miss /re/abc', '10.96.1.1', 8080, 'web:8080', '/re/abc'),
      http('method POST', '10.96.1.1', 8080, 'web:8080', '/', { method: 'POST' }),
      http('query debug=1', '10.96.1.1', 8080, 'web:8080', '/?debug=1'),
      http('header x-canary prefix', '10.96.1.1', 8080, 'web:8080', '/', { headers: { 'x-canary': 'canary-1' } }),
      http('redirect /old', '10.96.1.1', 8080, 'web:8080', '/old/page'),
      http('direct response /static', '10.96.1.1', 8080, 'web:8080', '/static/a.css'),
      http('default split 90/10', '10.96.1.1', 8080, 'web:8080', '/'),
      http('host web (no port)', '10.96.1.1', 8080, 'web', '/'),
      http('host web.diff-http', '10.96.1.1', 8080, 'web.diff-http:8080', '/'),
      http('host web.diff-http.svc', '10.96.1.1', 8080, 'web.diff-http.svc:8080', '/'),
      http('host VIP', '10.96.1.1', 8080, '10.96.1.1:8080', '/'),
      http('host FQDN with a trailing dot', '10.96.1.1', 8080, 'web.diff-http.svc.cluster.local.', '/'),
      tcp('raw TCP to an unknown address on an HTTP port', '93.184.216.34', 8080),
      { label: 'TLS to an unknown address on an HTTP port', request: { direction: 'outbound', protocol: 'tls', address: '93.184.216.34', port: 8080, sni: 'example.com' } },
      http('echo (no VirtualService)', '10.96.1.2', 8080, 'echo:8080', '/'),
      http('reviews from another namespace', '10.96.0.10', 9080, 'reviews.default:9080', '/'),
      tcp('db TCP 70/30', '10.96.1.3', 5432),
      { label: 'api.example.com TLS by SNI', request: { direction: 'outbound', protocol: 'tls', address: '203.0.113.5', port: 443, sni: 'api.example.com' } },
      { label: 'other SNI on 443', request: { direction: 'outbound', protocol: 'tls', address: '203.0.113.6', port: 443, sni: 'other.example.org' } },
      http('api.example.com HTTP', '203.0.113.5', 80, 'api.example.com', '/'),
      inbound('inbound 8000 over mesh mTLS', '10.10.0.1', 8000, MTLS),
      inbound('inbound 8000 plaintext (PERMISSIVE)', '10.10.0.1', 8000, {}),
      inbound('inbound to a port without a service', '10.10.0.1', 7777, { protocol: 'tcp' }),
      http('sniffed port, HTTP', '10.96.6.1', 7070, 'sniffed.diff-more:7070', '/'),
      http('sniffed port, HTTP with a Host no service has', '10.96.6.1', 7070, 'unknown.example.com', '/'),
      tcp('sniffed port, raw TCP', '10.96.6.1', 7070),
      tcp('headless service (NONE) to a pod IP', '10.50.0.9', 7071),
      http('a service exported to its own namespace only', '10.96.6.3', 8080, 'private.diff-more:8080', '/'),
      tcp('REDIS port (Redis proxy)', '10.96.6.20', 6379),
      tcp('MONGO port (Mongo proxy, then tcp_proxy)', '10.96.6.21', 27017),
      http('TLS origination without sni (auto SNI)', '203.0.113.22', 80, 'auto-sni.example.org', '/'),
      http('DNS ServiceEntry with endpoints', '203.0.113.20', 8081, 'legacy.example.org:8081', '/'),
      http('DNS subset selecting one endpoint', '203.0.113.24', 8083, 'dnsub.example.org:8083', '/'),
      http('DNS subset selecting no endpoint (cluster dropped)', '203.0.113.24', 8083, 'dnsub.example.org:8083', '/none'),
      http('one host in two namespaces: the older entry and its endpoints only', '203.0.113.40', 8090, 'dup.example.org:8090', '/'),
      http('one host twice in a namespace: both entries\' endpoints', '203.0.113.41', 8091, 'dup2.example.org:8091', '/'),
      http("one host twice in a namespace: the younger entry's port", '203.0.113.41', 8092, 'dup2.example.org:8092', '/'),
      http('DNS ServiceEntry with a workloadSelector selecting nothing (no host endpoint: cluster dropped)', '203.0.113.42', 8093, 'seldns.example.org:8093', '/'),
      http('TLS origination by DestinationRule (plain HTTP in)', '203.0.113.21', 80, 'secure.example.org', '/'),
      http('TLS origination with certificate files (file-cert/file-root over SDS)', '203.0.113.23', 80, 'files-mtls.example.org', '/'),
      http('shared port 7080: the HTTP service', '10.96.7.1', 7080, 'web7080.diff-ports:7080', '/'),
      tcp('shared port 7080: the TCP service by its VIP', '10.96.7.2', 7080),
      http("shared port 7080: HTTP with the TCP service's Host to an unknown address", '93.184.216.34', 7080, 'db7080.diff-ports:7080', '/'),
      http("shared port 7080: HTTP with the TCP service's Host to its VIP", '10.96.7.2', 7080, 'db7080.diff-ports.svc.cluster.local:7080', '/'),
    ],
  },
  {
    name: 'diff-ingress/ingress-0 (Sidecar ingress listeners with TLS)',
    node: sidecarNode({ ns: 'diff-ingress', pod: 'ingress-0', ip: '10.60.0.1', app: 'ingress-app', sa: 'ingress-app', ports: [9080, 8443, 9443, 7443] }),
    requests: [
      inbound('8443 HTTPS over TLS (SIMPLE, port DISABLE)', '10.60.0.1', 8443, { tls: true, sni: 'ingress-app.example.com' }),
      inbound('8443 plaintext (TLS only)', '10.60.0.1', 8443, {}),
      inbound('9443 TLS (MUTUAL, port DISABLE) as TCP', '10.60.0.1', 9443, { protocol: 'tcp', tls: true }),
      inbound('7443 over mesh mTLS (STRICT: the user TLS is ignored)', '10.60.0.1', 7443, MTLS),
      inbound('9080 over mesh mTLS (the service port, replaced by ingress listeners)', '10.60.0.1', 9080, MTLS),
    ],
  },
  {
    name: 'diff-sidecar/fields-0 (Sidecar connection pools, ingress captureMode NONE and bind)',
    node: sidecarNode({ ns: 'diff-sidecar', pod: 'fields-0', ip: '10.70.0.1', app: 'fields-app', sa: 'fields-app', ports: [9080, 8080, 9090] }),
    requests: [
      inbound('8080 (captureMode NONE) over mesh mTLS: its own listener at the proxy address', '10.70.0.1', 8080, MTLS),
      inbound('9090 (captureMode NONE, bind 127.0.0.1) plaintext TCP: its own listener', '127.0.0.1', 9090, { protocol: 'tcp' }),
      inbound('9080 (captured) over mesh mTLS: virtualInbound', '10.70.0.1', 9080, MTLS),
      inbound('8080 plaintext (STRICT)', '10.70.0.1', 8080, {}),
    ],
  },
  {
    name: 'diff-egress/egress-0 (Sidecar egress listeners with ports, bind and captureMode NONE)',
    node: sidecarNode({ ns: 'diff-egress', pod: 'egress-0', ip: '10.70.1.1', app: 'egress-client', sa: 'egress-client', ports: [8000] }),
    requests: [
      http('web on 127.0.0.1:8080 (egress bind, captureMode NONE) /v2', '127.0.0.1', 8080, 'web.diff-http:8080', '/v2/x'),
      http('web on 127.0.0.1:8080 (egress bind, captureMode NONE)', '127.0.0.1', 8080, 'web.diff-http:8080', '/'),
      tcp('db on 127.0.0.1:5432 (captureMode NONE, default bind)', '127.0.0.1', 5432),
      tcp('db by its VIP (the catch-all)', '10.96.1.3', 5432),
      http('web over the unix socket web.sock /v2 (route configuration unix://...: ports ignored in host matching, 8080 has only host:port domains: the catch-all)', '', 8080, 'web.diff-http:8080', '/v2/x', { unixSocket: '/var/run/mesh/web.sock' }),
      http('api.example.com over the unix socket web.sock (port 80: its plain domains match)', '', 80, 'api.example.com', '/', { unixSocket: '/var/run/mesh/web.sock' }),
      http('web over the unix socket web.sock with no port in the Host (the catch-all: off port 80 only :port domains)', '', 8080, 'web.diff-http', '/', { unixSocket: '/var/run/mesh/web.sock' }),
      { label: 'db over the unix socket db.sock (TCP 70/30)', request: { direction: 'outbound', protocol: 'tcp', port: 5432, unixSocket: '/var/run/mesh/db.sock' } },
      http('echo by its VIP on 8080: route configuration 8080 is the 8080 egress listener\'s', '10.96.1.2', 8080, 'echo.diff-http:8080', '/'),
      http('web by its VIP on 8080 (the catch-all listener, route configuration 8080)', '10.96.1.1', 8080, 'web.diff-http:8080', '/'),
    ],
  },
  {
    name: 'diff-none/none-0 (INTERCEPTION_MODE NONE, no Sidecar)',
    node: sidecarNode({ ns: 'diff-none', pod: 'none-0', ip: '10.70.2.1', app: 'none-client', sa: 'none-client', ports: [8000], interception: 'NONE' }),
    requests: [
      http('web on 127.0.0.1:8080 (every listener bound at localhost)', '127.0.0.1', 8080, 'web.diff-http:8080', '/v2/x'),
      http('reviews on 127.0.0.1:9080', '127.0.0.1', 9080, 'reviews.default:9080', '/', { headers: { 'end-user': 'jason' } }),
      tcp('mysqldb on 127.0.0.1:3306', '127.0.0.1', 3306),
      http('web by its VIP (not intercepted: no listener)', '10.96.1.1', 8080, 'web.diff-http:8080', '/'),
      inbound('inbound 8000 (no Sidecar ingress: no inbound listener)', '10.70.2.1', 8000, MTLS),
    ],
  },
  {
    name: 'diff-scoped/scoped-0 (Sidecar, REGISTRY_ONLY, PeerAuthentication)',
    node: sidecarNode({ ns: 'diff-scoped', pod: 'scoped-0', ip: '10.10.4.1', app: 'scoped', sa: 'scoped', ports: [9090, 9091] }),
    requests: [
      http('local service', '10.96.2.1', 8080, 'local:8080', '/'),
      http('web.diff-http (in egress)', '10.96.1.1', 8080, 'web.diff-http:8080', '/'),
      http('web.diff-http /v2 (its VirtualService)', '10.96.1.1', 8080, 'web.diff-http:8080', '/v2/x'),
      http('echo.diff-http (not in egress)', '10.96.1.2', 8080, 'echo.diff-http:8080', '/'),
      tcp('db.diff-http TCP (not in egress)', '10.96.1.3', 5432),
      http('reviews.default (not in egress)', '10.96.0.10', 9080, 'reviews.default:9080', '/'),
      http('unknown host (REGISTRY_ONLY)', '93.184.216.34', 80, 'example.com', '/'),
      tcp('unknown address (REGISTRY_ONLY)', '93.184.216.34', 8443),
      tcp('raw TCP to an unknown address on an HTTP port (REGISTRY_ONLY)', '93.184.216.34', 8080),
      inbound('inbound 9090 over mesh mTLS (STRICT)', '10.10.4.1', 9090, MTLS),
      inbound('inbound 9090 plaintext (STRICT)', '10.10.4.1', 9090, {}),
      inbound('inbound 9091 plaintext TCP (port DISABLE)', '10.10.4.1', 9091, { protocol: 'tcp' }),
    ],
  },
  {
    name: 'diff-v6/client6-0 (IPv6-only sidecar)',
    node: sidecarNode({ ns: 'diff-v6', pod: 'client6-0', ip: 'fd00:10::1', app: 'client6', sa: 'client6', ports: [8000] }),
    requests: [
      http('IPv6 service by its VIP', 'fd00:10:96::20', 8080, 'web6:8080', '/'),
      http('IPv6 service by FQDN', 'fd00:10:96::20', 8080, 'web6.diff-v6.svc.cluster.local:8080', '/'),
      tcp('unknown IPv6 address (ALLOW_ANY)', '2001:db8::1', 9999),
      tcp('ServiceEntry without a VIP (NONE) to an IPv6 address', '2001:db8::7', 7090),
      { label: 'DNS ServiceEntry TLS by SNI', request: { direction: 'outbound', protocol: 'tls', address: '2001:db8::8', port: 8443, sni: 'ext6.example.org' } },
      inbound('inbound 8000 over mesh mTLS', 'fd00:10::1', 8000, MTLS),
      inbound('inbound to a port without a service', 'fd00:10::1', 7777, { protocol: 'tcp' }),
    ],
  },
  {
    name: 'diff-v6/dual-0 (dual-stack sidecar, MESH_DUAL_STACK unset)',
    node: sidecarNode({ ns: 'diff-v6', pod: 'dual-0', ip: '10.90.0.1,fd00:10::3', app: 'dual', sa: 'dual', ports: [8000] }),
    requests: [
      http('IPv6 service by its VIP', 'fd00:10:96::20', 8080, 'web6:8080', '/'),
      http('IPv4 service by its VIP', '10.96.9.22', 8000, 'dual:8000', '/'),
      tcp('unknown IPv6 address (ALLOW_ANY)', '2001:db8::1', 9999),
      inbound('inbound 8000 over mesh mTLS', '10.90.0.1', 8000, MTLS),
    ],
  },
  {
    name: 'diff-locality/client-0 (locality LB at r1/z1/s1)',
    node: sidecarNode({ ns: 'diff-locality', pod: 'client-0', ip: '10.30.1.1', app: 'client', sa: 'client', ports: [8000], locality: { region: 'r1', zone: 'z1', subZone: 's1' }, labels: { track: 'canary' } }),
    requests: ['od', 'failover', 'fp', 'dist', 'off', 'plain'].map((n, i) => http(`${n}: endpoints of the first priority`, `10.96.3.${i + 1}`, 8080, `${n}:8080`, '/')),
  },
  ...(['picked', 'plain'] as const).map((app, i) => ({
    name: `diff-drsel/${app}-0 (a DestinationRule workloadSelector ${app === 'picked' ? 'picks' : 'does not pick'} it)`,
    node: sidecarNode({ ns: 'diff-drsel', pod: `${app}-0`, ip: `10.70.1.${i + 1}`, app, sa: app, ports: [8000] }),
    requests: [
      http('backend subset pinned: v2 when picked, v1 otherwise', '10.96.8.1', 8080, 'backend:8080', '/'),
      http('backend2 subset pinned: the private rule merged into the selector rule (no rule when not picked)', '10.96.8.2', 8080, 'backend2:8080', '/'),
      http('backend3 subset two: defined by the second of two merged rules', '10.96.8.3', 8080, 'backend3:8080', '/'),
    ],
  })),
  {
    name: 'diff-wild/client-0 (DestinationRules for wildcard hosts)',
    node: sidecarNode({ ns: 'diff-wild', pod: 'client-0', ip: '10.71.1.1', app: 'wclient', sa: 'wclient', ports: [8000] }),
    requests: [
      http('alpha subset pinned: the root namespace rule for *.diff-wild (v2)', '10.96.10.1', 8080, 'alpha:8080', '/'),
      http('beta subset pinned: the exact rule of its namespace over the root wildcard (v1)', '10.96.10.2', 8080, 'beta:8080', '/'),
      http('svc.api.wild.test subset pinned: *.api.wild.test over *.wild.test (v2)', '10.96.10.3', 8080, 'svc.api.wild.test:8080', '/'),
      http('backend.diff-drsel subset pinned: the proxy namespace wildcard over the service namespace exact rule (v2)', '10.96.8.1', 8080, 'backend.diff-drsel:8080', '/'),
    ],
  },
  {
    name: 'diff-hash/client-0 (DestinationRule consistent hashes on the routes)',
    node: sidecarNode({ ns: 'diff-hash', pod: 'client-0', ip: '10.72.1.1', app: 'hclient', sa: 'hclient', ports: [8000] }),
    requests: [
      http('hheader: default route hashed on a header', '10.96.11.1', 8080, 'hheader:8080', '/', { headers: { 'x-user': 'u1' } }),
      http('hcookie: default route hashed on a cookie', '10.96.11.2', 8080, 'hcookie:8080', '/app'),
      http('hport 8080: default route hashed on the source IP', '10.96.11.3', 8080, 'hport:8080', '/'),
      http('hport 9090: the port-level query parameter hash', '10.96.11.3', 9090, 'hport:9090', '/?session=s1'),
      http('hvs /one: subset v1 with its cookie hash', '10.96.11.4', 8080, 'hvs:8080', '/one'),
      http('hvs /split: v1 and v2 weighted, each one\'s hash', '10.96.11.4', 8080, 'hvs:8080', '/split'),
      http('hvs /port: the destination port\'s port-level hash', '10.96.11.4', 8080, 'hvs:8080', '/port'),
      http('hvs other paths: the rule\'s header hash, explicit retries', '10.96.11.4', 8080, 'hvs:8080', '/x'),
      http('hplain: no consistent hash', '10.96.11.5', 8080, 'hplain:8080', '/'),
      http('hring /keep: a ring hash without a key, retries keeping previous_hosts', '10.96.11.10', 8080, 'hring:8080', '/keep'),
      http('hring other paths: retries dropping previous_hosts', '10.96.11.10', 8080, 'hring:8080', '/x'),
      http('hsrc /v1: a session cookie (ttl 0s), retries keeping previous_hosts', '10.96.11.11', 8080, 'hsrc:8080', '/v1'),
      http('hsrc other paths: useSourceIp false', '10.96.11.11', 8080, 'hsrc:8080', '/x'),
      tcp('htcp (TCP): tcp_proxy hashed on the source IP', '10.96.11.6', 7000),
      tcp('htcp2 (TCP): subset v2, whose simple load balancer turns the hash off', '10.96.11.7', 7001),
    ],
  },
  ...(['a', 'b', 'c'] as const).map((team, i) => ({
    name: `diff-team-${team}/client-0 (api.stripe.com and api.teams.test declared privately by diff-team-a and diff-team-b: ${team === 'c' ? 'neither seen' : 'its own namespace\'s'})`,
    node: sidecarNode({ ns: `diff-team-${team}`, pod: 'client-0', ip: `10.82.1.${i + 1}`, app: 'client', sa: 'client', ports: [8000] }),
    requests: [
      tls(`api.stripe.com TLS: ${team === 'c' ? 'no entry visible (passes through)' : 'the entry of the proxy\'s namespace and its endpoint'}`, '203.0.113.50', 443, 'api.stripe.com'),
      http(`api.teams.test HTTP: ${team === 'c' ? 'no entry visible (passes through)' : 'the entry of the proxy\'s namespace and its endpoint'}`, '203.0.113.51', 8094, 'api.teams.test:8094', '/'),
    ],
  })),
  {
    name: 'diff-team-d/client-0 (a Sidecar importing diff-team-b/api.pick.test, which diff-team-a declares too, older)',
    node: sidecarNode({ ns: 'diff-team-d', pod: 'client-0', ip: '10.82.1.4', app: 'client', sa: 'client', ports: [8000] }),
    requests: [http('api.pick.test HTTP: the entry the Sidecar names (diff-team-b\'s) and its endpoint', '203.0.113.52', 8095, 'api.pick.test:8095', '/')],
  },
  {
    name: 'diff-trim/trim-0 (a Sidecar whose only egress listener is on port 9080: each service trimmed to that port)',
    node: sidecarNode({ ns: 'diff-trim', pod: 'trim-0', ip: '10.83.0.1', app: 'trim-client', sa: 'trim-client', ports: [8000] }),
    requests: [
      http('multi on 9080 by its VIP', '10.96.12.1', 9080, 'multi.diff-multi:9080', '/'),
      http('multi on 9090 by its VIP (not in the scope: no listener, passes through)', '10.96.12.1', 9090, 'multi.diff-multi:9090', '/'),
      tcp('other on 7000 by its VIP (not in the scope)', '10.96.12.2', 7000),
    ],
  },
  {
    name: 'diff-vsdest/vsdest-0 (a VirtualService destination on port 9090 of a service the Sidecar does not import)',
    node: sidecarNode({ ns: 'diff-vsdest', pod: 'vsdest-0', ip: '10.83.1.1', app: 'vsdest-client', sa: 'vsdest-client', ports: [8000] }),
    requests: [
      http('front on 80: routed to multi 9090', '10.96.12.3', 80, 'front.diff-vsdest', '/'),
      http('front on 80 /trim (the route for sources in diff-trim does not apply): multi 9090', '10.96.12.3', 80, 'front.diff-vsdest', '/trim'),
      http('front2 on 80: api.vsd.test (a destination no egress host selects): the older declaration, diff-vsz\'s', '10.96.12.4', 80, 'front2.diff-vsdest', '/'),
    ],
  },
  {
    name: 'diff-gw/eastwest-0 (router: AUTO_PASSTHROUGH on 15443, PASSTHROUGH on 8443)',
    node: sidecarNode({ ns: 'diff-gw', pod: 'eastwest-0', ip: '10.40.0.1', app: 'eastwest', sa: 'eastwest', ports: [15443, 8443], type: 'router' }),
    requests: [
      ...[
        ['reviews v1', 'outbound_.9080_.v1_.reviews.default.svc.cluster.local'],
        ['reviews (no subset)', 'outbound_.9080_._.reviews.default.svc.cluster.local'],
        ['web v2', 'outbound_.8080_.v2_.web.diff-http.svc.cluster.local'],
        ['mysqldb', 'outbound_.3306_._.mysqldb.data.svc.cluster.local'],
        ['an SNI that names no cluster', 'outbound_.9999_._.nothing.default.svc.cluster.local'],
        ['a plain host SNI', 'reviews.default.svc.cluster.local'],
      ].map(([what, sni]) => ({ label: `15443 AUTO_PASSTHROUGH: ${what}`, request: { direction: 'outbound' as const, protocol: 'tls' as const, address: '10.40.0.1', port: 15443, sni, alpn: ['mesh-peer-exchange', 'mesh'] } })),
      { label: '15443 AUTO_PASSTHROUGH: reviews v1 without mesh ALPN', request: { direction: 'outbound', protocol: 'tls', address: '10.40.0.1', port: 15443, sni: 'outbound_.9080_.v1_.reviews.default.svc.cluster.local' } },
      { label: '8443 PASSTHROUGH: api.example.com', request: { direction: 'outbound', protocol: 'tls', address: '10.40.0.1', port: 8443, sni: 'api.example.com' } },
      { label: '8443 PASSTHROUGH: other SNI', request: { direction: 'outbound', protocol: 'tls', address: '10.40.0.1', port: 8443, sni: 'other.example.com' } },
    ],
  },
];

/**
 * The orchestrator pass: what only the orchestrator registry can show (istiod applies some settings to
 * Kubernetes Services only, e.g. PILOT_ENABLE_EDS_FOR_HEADLESS_SERVICES). After the files pass, these
 * objects go to the API server and both servers read it instead of files (meshd `--registries
 * Orchestrator`, istiod without `--configDir`), once per entry of ORCH_PASSES with its environment.
 */
const SHARED_ENTRY: Doc = {
  apiVersion: 'networking.mesh.io/v1',
  kind: 'ServiceEntry',
  metadata: { name: 'shared', namespace: 'diff-team-a' },
  spec: { hosts: ['shared.diff-orch.svc.cluster.local'], location: 'MESH_INTERNAL', ports: [{ number: 8096, name: 'http', protocol: 'HTTP' }], resolution: 'STATIC', endpoints: [{ address: '10.80.0.8' }] },
};

/** An object the orchestrator pass creates, and where. */
interface OrchObject {
  readonly path: string;
  readonly body: Doc;
}

/** A Service of diff-orch selecting `app: <name>` on one TCP port, and its EndpointSlice with `addresses` ready. */
function orchService(name: string, port: { name: string; port: number }, addresses: readonly string[], spec: Doc = {}): OrchObject[] {
  const ports = [{ ...port, protocol: 'TCP' }];
  return [
    {
      path: '/api/v1/namespaces/diff-orch/services',
      body: { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'diff-orch' }, spec: { ...spec, selector: { app: name }, ports } },
    },
    {
      path: '/apis/discovery.k8s.io/v1/namespaces/diff-orch/endpointslices',
      body: {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: `${name}-1`, namespace: 'diff-orch', labels: { 'kubernetes.io/service-name': name } },
        addressType: 'IPv4',
        ports,
        endpoints: addresses.map((a) => ({ addresses: [a], conditions: { ready: true } })),
      },
    },
  ];
}

export const ORCH_OBJECTS: readonly OrchObject[] = [
  ...orchService('cassandra', { name: 'tcp-cql', port: 9042 }, ['10.80.0.5', '10.80.0.6'], { clusterIP: 'None' }),
  // NOTE: a host an orchestrator Service and a ServiceEntry of another namespace share: Service `shared` of diff-orch
  // (10.80.0.7) and a public entry in diff-team-a naming its FQDN (10.80.0.8). As istiod, a proxy of diff-team-a takes
  // its own namespace's entry, every other proxy the Service (no "domain squatting").
  ...orchService('shared', { name: 'http', port: 8096 }, ['10.80.0.7']),
  ...[SHARED_ENTRY, istiodDoc(SHARED_ENTRY)].map((body) => ({ path: `/apis/${String(body['apiVersion'])}/namespaces/diff-team-a/serviceentries`, body })),
];

/** The environments of the orchestrator pass (both servers get the same). */
export const ORCH_PASSES: readonly { readonly name: string; readonly env: Readonly<Record<string, string>> }[] = [
  { name: 'PILOT_ENABLE_EDS_FOR_HEADLESS_SERVICES unset', env: {} },
  { name: 'PILOT_ENABLE_EDS_FOR_HEADLESS_SERVICES=true', env: { PILOT_ENABLE_EDS_FOR_HEADLESS_SERVICES: 'true' } },
];

/** The sidecars of the orchestrator pass. */
export const ORCH_PROXIES: readonly DiffProxy[] = [
  {
    name: 'diff-orch/client-0 (orchestrator registry: a headless Service)',
    node: sidecarNode({ ns: 'diff-orch', pod: 'client-0', ip: '10.80.1.1', app: 'client', sa: 'client', ports: [8000] }),
    requests: [
      tcp('headless Service (clusterIP None): TCP to a pod IP', '10.80.0.5', 9042),
      tcp('headless Service: TCP to the other pod IP', '10.80.0.6', 9042),
      http('shared: the Service of its own namespace', '203.0.113.60', 8096, 'shared.diff-orch.svc.cluster.local:8096', '/'),
    ],
  },
  ...([['diff-team-a', '10.82.1.11', 'the ServiceEntry of its own namespace'], ['diff-team-c', '10.82.1.13', 'the Service over the other namespace\'s ServiceEntry']] as const).map(([ns, ip, what]) => ({
    name: `${ns}/orch-client-0 (orchestrator registry: a host a Service of diff-orch and a ServiceEntry of diff-team-a share)`,
    node: sidecarNode({ ns, pod: 'orch-client-0', ip, app: 'client', sa: 'client', ports: [8000] }),
    requests: [http(`shared: ${what}`, '203.0.113.60', 8096, 'shared.diff-orch.svc.cluster.local:8096', '/')],
  })),
];
