/**
 * Every CEL rule (`x-kubernetes-validations`) of the kinds meshd serves, as istio/api's generated CRDs
 * (kubernetes/customresourcedefinitions.gen.yaml, api of 2026-08-24, the served v1 schemas; EnvoyFilter
 * v1alpha3, ProxyConfig v1beta1, WasmPlugin v1alpha1) carry them: kind, Istio's field, Istio's message,
 * then where meshd must report it (`path`), a spec that violates the rule (`bad`) and a spec at its edge
 * that satisfies it (`good`). MeshOperator has no Istio CRD. crds/validation/istio-cel-rules.test.ts
 * runs the table through `validateConfig` (the validator of files, the webhook and the CRD source),
 * crds/render-crds.test.ts checks that the rendered CRDs carry exactly these rules at these fields, and
 * e2e/crds-cel.test.ts applies every `bad` and `good` to a real API server. The messages (and the rules' CEL
 * text) come from `schemas/shared/istio-cel.ts`, the one place they are written.
 */
import { CEL } from '../schemas/shared/istio-cel.js';

/** One rule and its two configs. */
export interface CelRuleCase {
  readonly kind: string;
  readonly apiVersion: string;
  /** The field the rule sits on in Istio's CRD (`[]` an item, `{}` a map value). */
  readonly field: string;
  /** Istio's message for the rule. */
  readonly message: string;
  /** Where meshd reports the violation of `bad`. */
  readonly path: string;
  readonly bad: unknown;
  readonly good: unknown;
}

const NET = 'networking.mesh.io/v1';
const SEC = 'security.mesh.io/v1';

type Obj = Record<string, unknown>;

/** `{a: {b: value}}` from `a.b`. */
function at(dotted: string, value: unknown): Obj {
  return dotted
    .split('.')
    .reverse()
    .reduce<unknown>((v, k) => ({ [k]: v }), value) as Obj;
}

function row(kind: string, apiVersion: string, field: string, message: string, path: string, bad: unknown, good: unknown): CelRuleCase {
  return { kind, apiVersion, field, message, path, bad, good };
}

const DURATION_MSG = CEL.duration.message;
const POOL_DURATIONS = ['http.http2KeepAlive.interval', 'http.http2KeepAlive.timeout', 'http.idleTimeout', 'tcp.connectTimeout', 'tcp.maxConnectionDuration', 'tcp.tcpKeepalive.interval', 'tcp.tcpKeepalive.time'];
const POLICY_DURATIONS = [...POOL_DURATIONS.map((d) => `connectionPool.${d}`), 'loadBalancer.warmup.duration', 'loadBalancer.warmupDurationSecs', 'outlierDetection.baseEjectionTime', 'outlierDetection.interval'];
/** Just under the rule's 1ms, and the edge. */
const UNDER = '0.5ms';
const EDGE = '1ms';

function destinationRuleDurations(): CelRuleCase[] {
  const host = 'reviews.demo.svc.cluster.local';
  const contexts: { field: string; path: string; spec: (policy: Obj) => Obj }[] = [
    { field: '.spec.trafficPolicy', path: 'spec.trafficPolicy', spec: (p) => ({ host, trafficPolicy: p }) },
    { field: '.spec.trafficPolicy.portLevelSettings[]', path: 'spec.trafficPolicy.portLevelSettings[0]', spec: (p) => ({ host, trafficPolicy: { portLevelSettings: [{ port: { number: 9080 }, ...p }] } }) },
    { field: '.spec.subsets[].trafficPolicy', path: 'spec.subsets[0].trafficPolicy', spec: (p) => ({ host, subsets: [{ name: 'v1', labels: { version: 'v1' }, trafficPolicy: p }] }) },
    {
      field: '.spec.subsets[].trafficPolicy.portLevelSettings[]',
      path: 'spec.subsets[0].trafficPolicy.portLevelSettings[0]',
      spec: (p) => ({ host, subsets: [{ name: 'v1', labels: { version: 'v1' }, trafficPolicy: { portLevelSettings: [{ port: { number: 9080 }, ...p }] } }] }),
    },
  ];
  return contexts.flatMap((c) => POLICY_DURATIONS.map((d) => row('DestinationRule', NET, `${c.field}.${d}`, DURATION_MSG, `${c.path}.${d}`, c.spec(at(d, UNDER)), c.spec(at(d, EDGE)))));
}

function sidecarDurations(): CelRuleCase[] {
  const ingress = (pool: Obj): Obj => ({ ingress: [{ port: { number: 9080, protocol: 'HTTP', name: 'http' }, defaultEndpoint: '127.0.0.1:8080', connectionPool: pool }] });
  return [
    ...POOL_DURATIONS.map((d) => row('Sidecar', NET, `.spec.inboundConnectionPool.${d}`, DURATION_MSG, `spec.inboundConnectionPool.${d}`, { inboundConnectionPool: at(d, UNDER) }, { inboundConnectionPool: at(d, EDGE) })),
    ...POOL_DURATIONS.map((d) => row('Sidecar', NET, `.spec.ingress[].connectionPool.${d}`, DURATION_MSG, `spec.ingress[0].connectionPool.${d}`, ingress(at(d, UNDER)), ingress(at(d, EDGE)))),
  ];
}

function virtualServiceDurations(): CelRuleCase[] {
  const http = (extra: Obj): Obj => ({ hosts: ['reviews'], http: [{ route: [{ destination: { host: 'reviews' } }], ...extra }] });
  const fields: [string, (v: string) => Obj][] = [
    ['corsPolicy.maxAge', (v) => ({ corsPolicy: { allowOrigins: [{ exact: 'https://a.example.com' }], maxAge: v } })],
    ['fault.delay.exponentialDelay', (v) => ({ fault: { delay: { exponentialDelay: v, percentage: { value: 10 } } } })],
    ['fault.delay.fixedDelay', (v) => ({ fault: { delay: { fixedDelay: v, percentage: { value: 10 } } } })],
    ['retries.backoff', (v) => ({ retries: { attempts: 2, backoff: v } })],
    ['retries.perTryTimeout', (v) => ({ retries: { attempts: 2, perTryTimeout: v } })],
    ['timeout', (v) => ({ timeout: v })],
  ];
  return fields.map(([f, make]) => row('VirtualService', NET, `.spec.http[].${f}`, DURATION_MSG, `spec.http[0].${f}`, http(make(UNDER)), http(make(EDGE))));
}

/** The three rules on matchLabels of a `selector` (key wildcard, empty key, value wildcard). */
function matchLabelRules(kind: string, apiVersion: string, selectorField: string, base: Obj): CelRuleCase[] {
  const sel = (labels: Obj): Obj => ({ ...base, ...at(`${selectorField}.matchLabels`, labels) });
  const f = `.spec.${selectorField}.matchLabels`;
  const p = `spec.${selectorField}.matchLabels`;
  return [
    row(kind, apiVersion, f, CEL.matchLabelKeyWildcard.message, p, sel({ 'app*': 'x' }), sel({ 'app.example.com/name': 'x' })),
    row(kind, apiVersion, f, CEL.matchLabelKeyEmpty.message, p, sel({ '': 'x' }), sel({ a: 'x' })),
    row(kind, apiVersion, `${f}{}`, CEL.matchLabelValueWildcard.message, `${p}.app`, sel({ app: 'x*' }), sel({ app: '' })),
  ];
}

/** The rules of policies with `targetRef`/`targetRefs` and `selector`. */
function targetRefRules(kind: string, apiVersion: string, base: Obj, group = 'gateway.networking.k8s.io', refKind = 'Gateway'): CelRuleCase[] {
  const ref = { group, kind: refKind, name: 'gw' };
  return [
    row(kind, apiVersion, '.spec', CEL.targetRefsOrSelector.message, 'spec', { ...base, selector: { matchLabels: { app: 'a' } }, targetRefs: [ref] }, { ...base, targetRefs: [ref] }),
    row(kind, apiVersion, '.spec.targetRef.namespace', CEL.targetRefSameNamespace.message, 'spec.targetRef.namespace', { ...base, targetRef: { ...ref, namespace: 'other' } }, { ...base, targetRef: { ...ref, namespace: '' } }),
    row(kind, apiVersion, '.spec.targetRefs[].namespace', CEL.targetRefSameNamespace.message, 'spec.targetRefs[0].namespace', { ...base, targetRefs: [{ ...ref, namespace: 'other' }] }, { ...base, targetRefs: [{ ...ref, namespace: '' }] }),
  ];
}

/**
 * The three rules on a ServerTLSSettings (Gateway servers, Sidecar ingress). `good` replaces the edge configs
 * where Istio's own validation refuses every credential source the rules compare (a Sidecar terminates TLS with
 * files only): the config that satisfies the rule is then one with none of them.
 */
function serverTlsRules(kind: string, field: string, path: string, spec: (tls: Obj) => Obj, good?: Obj): CelRuleCase[] {
  const certs = [{ serverCertificate: '/etc/certs/a.pem', privateKey: '/etc/certs/a.key' }];
  const edge = (tls: Obj): Obj => spec(good ?? tls);
  return [
    row(kind, NET, field, CEL.credentialNamesOrTlsCertificates.message, path, spec({ mode: 'SIMPLE', credentialNames: ['a'], tlsCertificates: certs }), edge({ mode: 'SIMPLE', tlsCertificates: certs })),
    row(kind, NET, field, CEL.credentialNameOrCredentialNames.message, path, spec({ mode: 'SIMPLE', credentialName: 'a', credentialNames: ['b'] }), edge({ mode: 'SIMPLE', credentialNames: ['a', 'b'] })),
    // NOTE: Istio's third rule counts credentialNames and tlsCertificates (as the first) under this message.
    row(kind, NET, field, CEL.credentialNameOrTlsCertificates.message, path, spec({ mode: 'SIMPLE', credentialNames: ['a'], tlsCertificates: certs }), edge({ mode: 'SIMPLE', credentialName: 'a' })),
  ];
}

const PORT_MSG = CEL.port.message;
/** The longest port name the rule takes (62 characters: `size(key) < 63`). */
const LONG_PORT_NAME = `t${'1'.repeat(61)}`;
const SE_BASE = { hosts: ['api.example.com'], ports: [{ number: 443, name: 'tls', protocol: 'TLS' }], location: 'MESH_EXTERNAL' };

function serviceEntryRules(): CelRuleCase[] {
  const se = (extra: Obj): Obj => ({ ...SE_BASE, resolution: 'STATIC', ...extra });
  const ep = (e: Obj): Obj => se({ endpoints: [e] });
  return [
    row('ServiceEntry', NET, '.spec', CEL.serviceEntrySelectorOrEndpoints.message, 'spec', se({ workloadSelector: { labels: { app: 'a' } }, endpoints: [{ address: '10.0.0.1' }] }), se({ workloadSelector: { labels: { app: 'a' } } })),
    row('ServiceEntry', NET, '.spec', CEL.serviceEntryCidrResolution.message, 'spec', { ...SE_BASE, addresses: ['10.1.0.0/16'], resolution: 'DNS' }, { ...SE_BASE, addresses: ['10.1.0.0/16'], resolution: 'STATIC', endpoints: [{ address: '10.1.0.1' }] }),
    row('ServiceEntry', NET, '.spec', CEL.serviceEntryNoneEndpoints.message, 'spec', { ...SE_BASE, endpoints: [{ address: '10.0.0.1' }] }, { ...SE_BASE, resolution: 'NONE' }),
    row('ServiceEntry', NET, '.spec', CEL.serviceEntryDnsRoundRobin.message, 'spec', se({ resolution: 'DNS_ROUND_ROBIN', endpoints: [{ address: 'a.example.com' }, { address: 'b.example.com' }] }), se({ resolution: 'DNS_ROUND_ROBIN', endpoints: [{ address: 'a.example.com' }] })),
    row('ServiceEntry', NET, '.spec.endpoints[]', CEL.addressRequired.message, 'spec.endpoints[0]', ep({ labels: { app: 'a' } }), ep({ network: 'net-2' })),
    row('ServiceEntry', NET, '.spec.endpoints[]', CEL.udsNoPorts.message, 'spec.endpoints[0]', ep({ address: 'unix:///var/run/a.sock', ports: { tls: 8443 } }), ep({ address: 'unix:///var/run/a.sock' })),
    row('ServiceEntry', NET, '.spec.endpoints[].address', CEL.udsAbsolute.message, 'spec.endpoints[0].address', ep({ address: 'unix://var/run/a.sock' }), ep({ address: 'unix://@abstract' })),
    row('ServiceEntry', NET, '.spec.endpoints[].address', CEL.udsNotDir.message, 'spec.endpoints[0].address', ep({ address: 'unix:///var/run/' }), ep({ address: 'unix:///var/run/a' })),
    row('ServiceEntry', NET, '.spec.endpoints[].ports', CEL.portNames.message, 'spec.endpoints[0].ports', ep({ address: '10.0.0.1', ports: { '-tls': 8443 } }), { ...se({ endpoints: [{ address: '10.0.0.1', ports: { [LONG_PORT_NAME]: 8443 } }] }), ports: [{ number: 443, name: LONG_PORT_NAME, protocol: 'TLS' }] }),
    row('ServiceEntry', NET, '.spec.endpoints[].ports{}', PORT_MSG, 'spec.endpoints[0].ports.tls', ep({ address: '10.0.0.1', ports: { tls: 65536 } }), ep({ address: '10.0.0.1', ports: { tls: 65535 } })),
    row('ServiceEntry', NET, '.spec.hosts[]', CEL.hostNotWildcard.message, 'spec.hosts[0]', { ...SE_BASE, hosts: ['*'] }, { ...SE_BASE, hosts: ['*.example.com'], resolution: 'NONE' }),
    row('ServiceEntry', NET, '.spec.ports', CEL.portNumbersUnique.message, 'spec.ports', se({ ports: [{ number: 443, name: 'a', protocol: 'TLS' }, { number: 443, name: 'b', protocol: 'TLS' }] }), se({ ports: [{ number: 443, name: 'a', protocol: 'TLS' }, { number: 444, name: 'b', protocol: 'TLS' }] })),
    row('ServiceEntry', NET, '.spec.ports[].number', PORT_MSG, 'spec.ports[0].number', se({ ports: [{ number: 0, name: 'tls', protocol: 'TLS' }] }), se({ ports: [{ number: 65535, name: 'tls', protocol: 'TLS' }] })),
    row('ServiceEntry', NET, '.spec.ports[].targetPort', PORT_MSG, 'spec.ports[0].targetPort', se({ ports: [{ number: 443, name: 'tls', protocol: 'TLS', targetPort: 65536 }] }), se({ ports: [{ number: 443, name: 'tls', protocol: 'TLS', targetPort: 1 }] })),
    row('ServiceEntry', NET, '.spec.workloadSelector.labels{}', CEL.selectorLabelWildcard.message, 'spec.workloadSelector.labels.app', se({ workloadSelector: { labels: { app: 'a*' } } }), se({ workloadSelector: { labels: { app: 'a.b-c' } } })),
  ];
}

/** The rules of a WorkloadEntry-shaped object (WorkloadEntry spec, WorkloadGroup template) at `path`. */
function workloadEntryRules(kind: string, field: string, path: string, spec: (we: Obj) => Obj, addressRequired: boolean): CelRuleCase[] {
  const p = path === '' ? 'spec' : `spec.${path}`;
  return [
    ...(addressRequired ? [row(kind, NET, field, CEL.addressRequired.message, p, spec({ labels: { app: 'a' } }), spec({ network: 'net-2' }))] : []),
    row(kind, NET, field, CEL.udsNoPorts.message, p, spec({ address: 'unix:///var/run/a.sock', ports: { http: 8080 } }), spec({ address: 'unix:///var/run/a.sock' })),
    row(kind, NET, `${field}.address`, CEL.udsAbsolute.message, `${p}.address`, spec({ address: 'unix://var/run/a.sock' }), spec({ address: 'unix:///a' })),
    row(kind, NET, `${field}.address`, CEL.udsNotDir.message, `${p}.address`, spec({ address: 'unix:///var/run/' }), spec({ address: 'unix://@a' })),
    row(kind, NET, `${field}.ports`, CEL.portNames.message, `${p}.ports`, spec({ address: '10.0.0.1', ports: { 'http-': 8080 } }), spec({ address: '10.0.0.1', ports: { 'h-1': 8080 } })),
    row(kind, NET, `${field}.ports{}`, PORT_MSG, `${p}.ports.http`, spec({ address: '10.0.0.1', ports: { http: 0 } }), spec({ address: '10.0.0.1', ports: { http: 1 } })),
  ];
}

function workloadGroupRules(): CelRuleCase[] {
  const probe = (p: Obj): Obj => ({ template: { serviceAccount: 'sa' }, probe: p });
  return [
    row('WorkloadGroup', NET, '.spec.probe.grpc.port', PORT_MSG, 'spec.probe.grpc.port', probe({ grpc: { port: 65536 } }), probe({ grpc: { port: 65535 } })),
    row('WorkloadGroup', NET, '.spec.probe.httpGet.port', PORT_MSG, 'spec.probe.httpGet.port', probe({ httpGet: { port: 0, path: '/' } }), probe({ httpGet: { port: 1, path: '/' } })),
    row('WorkloadGroup', NET, '.spec.probe.httpGet.scheme', CEL.probeScheme.message, 'spec.probe.httpGet.scheme', probe({ httpGet: { port: 80, scheme: 'FTP' } }), probe({ httpGet: { port: 80, scheme: 'HTTPS' } })),
    row('WorkloadGroup', NET, '.spec.probe.tcpSocket.port', PORT_MSG, 'spec.probe.tcpSocket.port', probe({ tcpSocket: { port: 65536 } }), probe({ tcpSocket: { port: 65535 } })),
    ...workloadEntryRules('WorkloadGroup', '.spec.template', 'template', (we) => ({ template: we }), false),
  ];
}

function envoyFilterRules(): CelRuleCase[] {
  const A3 = 'networking.mesh.io/v1alpha3';
  const patch = (match: Obj): Obj => ({ configPatches: [{ applyTo: 'HTTP_FILTER', match, patch: { operation: 'REMOVE' } }] });
  const ref = { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'gw' };
  return [
    row('EnvoyFilter', A3, '.spec', CEL.targetRefsOrWorkloadSelector.message, 'spec', { ...patch({ context: 'GATEWAY' }), workloadSelector: { labels: { app: 'a' } }, targetRefs: [ref] }, { ...patch({ context: 'GATEWAY' }), targetRefs: [ref] }),
    row('EnvoyFilter', A3, '.spec.configPatches[].match', CEL.waypointMatchContext.message, 'spec.configPatches[0].match', patch({ context: 'SIDECAR_INBOUND', waypoint: { portNumber: 80 } }), patch({ context: 'WAYPOINT', waypoint: { portNumber: 80 } })),
    row('EnvoyFilter', A3, '.spec.configPatches[].match.waypoint.portNumber', PORT_MSG, 'spec.configPatches[0].match.waypoint.portNumber', patch({ context: 'WAYPOINT', waypoint: { portNumber: 65536 } }), patch({ context: 'WAYPOINT', waypoint: { portNumber: 65535 } })),
    row('EnvoyFilter', A3, '.spec.targetRefs[].namespace', CEL.targetRefSameNamespace.message, 'spec.targetRefs[0].namespace', { ...patch({ context: 'GATEWAY' }), targetRefs: [{ ...ref, namespace: 'other' }] }, { ...patch({ context: 'GATEWAY' }), targetRefs: [{ ...ref, namespace: '' }] }),
    row('EnvoyFilter', A3, '.spec.workloadSelector.labels{}', CEL.selectorLabelWildcard.message, 'spec.workloadSelector.labels.app', { ...patch({ context: 'SIDECAR_INBOUND' }), workloadSelector: { labels: { app: '*' } } }, { ...patch({ context: 'SIDECAR_INBOUND' }), workloadSelector: { labels: { app: 'a' } } }),
  ];
}

function securityRules(): CelRuleCase[] {
  const allow = { action: 'ALLOW', rules: [{}] };
  const source = (s: Obj): Obj => ({ rules: [{ from: [{ source: s }] }] });
  const pa = (extra: Obj): Obj => ({ mtls: { mode: 'STRICT' }, ...extra });
  const jwt = (j: Obj): Obj => ({ jwtRules: [{ issuer: 'https://issuer.example.com', ...j }] });
  return [
    ...targetRefRules('AuthorizationPolicy', SEC, allow),
    row('AuthorizationPolicy', SEC, '.spec.rules[].from[].source', CEL.serviceAccountsExclusive.message, 'spec.rules[0].from[0].source', source({ serviceAccounts: ['demo/sa'], namespaces: ['demo'] }), source({ serviceAccounts: ['demo/sa'], ipBlocks: ['10.0.0.0/8'] })),
    ...matchLabelRules('AuthorizationPolicy', SEC, 'selector', allow),
    row('PeerAuthentication', SEC, '.spec', CEL.portLevelMtlsSelector.message, 'spec', pa({ portLevelMtls: { 8080: { mode: 'DISABLE' } } }), pa({ selector: { matchLabels: { app: 'a' } }, portLevelMtls: { 8080: { mode: 'DISABLE' } } })),
    row('PeerAuthentication', SEC, '.spec.portLevelMtls', PORT_MSG, 'spec.portLevelMtls', pa({ selector: { matchLabels: { app: 'a' } }, portLevelMtls: { 65536: { mode: 'DISABLE' } } }), pa({ selector: { matchLabels: { app: 'a' } }, portLevelMtls: { 65535: { mode: 'DISABLE' }, 1: { mode: 'STRICT' } } })),
    ...matchLabelRules('PeerAuthentication', SEC, 'selector', pa({})),
    ...targetRefRules('RequestAuthentication', SEC, jwt({})),
    row('RequestAuthentication', SEC, '.spec.jwtRules[]', CEL.jwksExclusive.message, 'spec.jwtRules[0]', jwt({ jwks: '{"keys":[]}', jwksUri: 'https://issuer.example.com/keys' }), jwt({ jwksUri: 'https://issuer.example.com/keys' })),
    row('RequestAuthentication', SEC, '.spec.jwtRules[].jwks_uri', CEL.jwksUriScheme.message, 'spec.jwtRules[0].jwks_uri', jwt({ jwks_uri: 'ftp://issuer.example.com/keys' }), jwt({ jwks_uri: 'http://issuer.example.com/keys' })),
    row('RequestAuthentication', SEC, '.spec.jwtRules[].jwksUri', CEL.jwksUriScheme.message, 'spec.jwtRules[0].jwksUri', jwt({ jwksUri: 'file:///keys.json' }), jwt({ jwksUri: 'http://issuer.example.com/keys' })),
    row('RequestAuthentication', SEC, '.spec.jwtRules[].timeout', DURATION_MSG, 'spec.jwtRules[0].timeout', jwt({ jwksUri: 'https://issuer.example.com/keys', timeout: UNDER }), jwt({ jwksUri: 'https://issuer.example.com/keys', timeout: EDGE })),
    ...matchLabelRules('RequestAuthentication', SEC, 'selector', jwt({})),
  ];
}

function telemetryRules(): CelRuleCase[] {
  const TEL = 'telemetry.mesh.io/v1';
  const tag = (o: Obj): Obj => ({ metrics: [{ overrides: [{ tagOverrides: { request_host: o } }] }] });
  return [
    ...targetRefRules('Telemetry', TEL, { tracing: [{ randomSamplingPercentage: 10 }] }),
    row('Telemetry', TEL, '.spec.metrics[].overrides[].tagOverrides{}', CEL.tagOverrideUpsert.message, 'spec.metrics[0].overrides[0].tagOverrides.request_host', tag({ operation: 'UPSERT', value: '' }), tag({ operation: 'UPSERT', value: 'request.host' })),
    row('Telemetry', TEL, '.spec.metrics[].overrides[].tagOverrides{}', CEL.tagOverrideRemove.message, 'spec.metrics[0].overrides[0].tagOverrides.request_host', tag({ operation: 'REMOVE', value: 'request.host' }), tag({ operation: 'REMOVE' })),
    row('Telemetry', TEL, '.spec.metrics[].reportingInterval', DURATION_MSG, 'spec.metrics[0].reportingInterval', { metrics: [{ reportingInterval: UNDER }] }, { metrics: [{ reportingInterval: EDGE }] }),
    ...matchLabelRules('Telemetry', TEL, 'selector', { tracing: [{ randomSamplingPercentage: 10 }] }),
  ];
}

function wasmPluginRules(): CelRuleCase[] {
  const EXT = 'extensions.mesh.io/v1alpha1';
  const base = { url: 'oci://registry.example.com/filter:1' };
  return [
    ...targetRefRules('WasmPlugin', EXT, base),
    ...matchLabelRules('WasmPlugin', EXT, 'selector', base),
    row('WasmPlugin', EXT, '.spec.url', CEL.wasmUrlScheme.message, 'spec.url', { url: 'ftp://registry.example.com/filter.wasm' }, { url: 'file:///opt/filter.wasm' }),
    row('WasmPlugin', EXT, '.spec.vmConfig.env[]', CEL.wasmEnvValue.message, 'spec.vmConfig.env[0]', { ...base, vmConfig: { env: [{ name: 'A', valueFrom: 'HOST', value: 'x' }] } }, { ...base, vmConfig: { env: [{ name: 'A', valueFrom: 'HOST' }] } }),
  ];
}

/** Every rule (see the file comment). */
export const ISTIO_CEL_RULES: readonly CelRuleCase[] = [
  ...virtualServiceDurations(),
  ...destinationRuleDurations(),
  ...matchLabelRules('DestinationRule', NET, 'workloadSelector', { host: 'reviews.demo.svc.cluster.local' }),
  ...serviceEntryRules(),
  ...workloadEntryRules('WorkloadEntry', '.spec', '', (we) => we, true),
  ...workloadGroupRules(),
  ...serverTlsRules('Gateway', '.spec.servers[].tls', 'spec.servers[0].tls', (tls) => ({ selector: { app: 'ingress' }, servers: [{ port: { number: 443, name: 'https', protocol: 'HTTPS' }, hosts: ['*.example.com'], tls }] })),
  ...sidecarDurations(),
  ...serverTlsRules('Sidecar', '.spec.ingress[].tls', 'spec.ingress[0].tls', (tls) => ({ ingress: [{ port: { number: 8443, protocol: 'HTTPS', name: 'https' }, defaultEndpoint: '127.0.0.1:8080', tls }] }), { mode: 'SIMPLE', serverCertificate: '/etc/certs/a.pem', privateKey: '/etc/certs/a.key' }),
  row('Sidecar', NET, '.spec.workloadSelector.labels{}', CEL.selectorLabelWildcard.message, 'spec.workloadSelector.labels.app', { workloadSelector: { labels: { app: 'a*' } }, egress: [{ hosts: ['./*'] }] }, { workloadSelector: { labels: { app: 'a' } }, egress: [{ hosts: ['./*'] }] }),
  ...envoyFilterRules(),
  ...matchLabelRules('ProxyConfig', 'networking.mesh.io/v1beta1', 'selector', { concurrency: 2 }),
  ...securityRules(),
  ...telemetryRules(),
  ...wasmPluginRules(),
];
