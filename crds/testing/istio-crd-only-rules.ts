/**
 * The schema rules of Istio's generated CRDs that ours carry only in the rendered CRD (`x-mesh-crd` on a schema
 * node: Istio's `oneOf` for a proto oneof, a bound meshd checks semantically; `x-kubernetes-list-type`, which ajv
 * ignores), because the semantic checks say more than ajv's errors for them (or ajv has none). Per rule: kind, the field in Istio's CRD, a piece of the API server's
 * message (`apiServerMessage`), where meshd reports it (`path`), a spec that violates it and one that does not.
 * `validation/istio-crd-only-rules.test.ts` runs the table through `validateConfig` and checks the rendered CRDs;
 * `e2e/crds-cel.test.ts` sends both specs to a real API server.
 */

/** One rule and its two configs. */
export interface CrdOnlyRuleCase {
  readonly kind: string;
  readonly apiVersion: string;
  /** The field the rule sits on (`[]` an item, `{}` a map value), as in `istio-cel-rules.ts`. */
  readonly field: string;
  /** The schema keyword of the rule (`oneOf`, `allOf`, `maximum`, `x-kubernetes-list-type`). */
  readonly keyword: string;
  /** What the API server's refusal says. */
  readonly apiServerMessage: string;
  /** Where meshd reports the violation. */
  readonly path: string;
  readonly bad: unknown;
  readonly good: unknown;
}

type Obj = Record<string, unknown>;

const NET = 'networking.mesh.io/v1';
const ONE_OF = 'must validate one and only one schema (oneOf)';

function row(kind: string, apiVersion: string, field: string, keyword: string, apiServerMessage: string, path: string, bad: unknown, good: unknown): CrdOnlyRuleCase {
  return { kind, apiVersion, field, keyword, apiServerMessage, path, bad, good };
}

function virtualServiceRules(): CrdOnlyRuleCase[] {
  const http = (extra: Obj): Obj => ({ hosts: ['reviews'], http: [{ route: [{ destination: { host: 'reviews' } }], ...extra }] });
  const redirect = (r: Obj): Obj => ({ hosts: ['reviews'], http: [{ redirect: { uri: '/v2', ...r } }] });
  const pct = { percentage: { value: 10 } };
  return [
    row('VirtualService', NET, '.spec.http[].fault.delay', 'oneOf', ONE_OF, 'spec.http[0].fault.delay', http({ fault: { delay: { fixedDelay: '1s', exponentialDelay: '1s', ...pct } } }), http({ fault: { delay: { fixedDelay: '1s', ...pct } } })),
    row('VirtualService', NET, '.spec.http[].fault.abort', 'oneOf', ONE_OF, 'spec.http[0].fault.abort', http({ fault: { abort: { httpStatus: 503, grpcStatus: 'UNAVAILABLE', ...pct } } }), http({ fault: { abort: { grpcStatus: 'UNAVAILABLE', ...pct } } })),
    row('VirtualService', NET, '.spec.http[].redirect', 'oneOf', ONE_OF, 'spec.http[0].redirect', redirect({ port: 8080, derivePort: 'FROM_REQUEST_PORT' }), redirect({ derivePort: 'FROM_REQUEST_PORT' })),
  ];
}

function destinationRuleRules(): CrdOnlyRuleCase[] {
  const lb = (l: Obj): Obj => ({ host: 'reviews.demo.svc.cluster.local', trafficPolicy: { loadBalancer: l } });
  const field = '.spec.trafficPolicy.loadBalancer';
  const path = 'spec.trafficPolicy.loadBalancer';
  return [
    row('DestinationRule', NET, field, 'oneOf', ONE_OF, path, lb({ simple: 'ROUND_ROBIN', consistentHash: { httpHeaderName: 'x-user' } }), lb({ consistentHash: { httpHeaderName: 'x-user' } })),
    row('DestinationRule', NET, `${field}.consistentHash`, 'allOf', ONE_OF, `${path}.consistentHash`, lb({ consistentHash: { httpHeaderName: 'x-user', httpQueryParameterName: 'user' } }), lb({ consistentHash: { httpQueryParameterName: 'user' } })),
    row('DestinationRule', NET, `${field}.consistentHash`, 'allOf', ONE_OF, `${path}.consistentHash`, lb({ consistentHash: { httpHeaderName: 'x-user', ringHash: { minimumRingSize: 1024 }, maglev: { tableSize: 65537 } } }), lb({ consistentHash: { httpHeaderName: 'x-user', maglev: { tableSize: 65537 } } })),
  ];
}

/** Lists Istio's CRDs make list maps (`x-kubernetes-list-type: map`): an item per key. */
function listMapRules(): CrdOnlyRuleCase[] {
  const EXT = 'extensions.mesh.io/v1alpha1';
  const url = 'oci://registry.example.com/filter:1';
  const port = (number: number, name: string): Obj => ({ number, name, protocol: 'HTTP' });
  return [
    row('ServiceEntry', NET, '.spec.ports', 'x-kubernetes-list-type', 'Duplicate value', 'spec.ports[1].name', { hosts: ['api.example.com'], ports: [port(80, 'http'), port(81, 'http')], resolution: 'DNS' }, { hosts: ['api.example.com'], ports: [port(80, 'http'), port(81, 'http-2')], resolution: 'DNS' }),
    row('WasmPlugin', EXT, '.spec.vmConfig.env', 'x-kubernetes-list-type', 'Duplicate value', 'spec.vmConfig.env[1].name', { url, vmConfig: { env: [{ name: 'A', value: 'x' }, { name: 'A', value: 'y' }] } }, { url, vmConfig: { env: [{ name: 'A', value: 'x' }, { name: 'B', value: 'y' }] } }),
    row('WasmPlugin', EXT, '.spec.match[].ports', 'x-kubernetes-list-type', 'Duplicate value', 'spec.match[0].ports[1].number', { url, match: [{ ports: [{ number: 80 }, { number: 80 }] }] }, { url, match: [{ ports: [{ number: 80 }, { number: 8080 }] }] }),
  ];
}

/** Every rule (see the file comment). */
export const ISTIO_CRD_ONLY_RULES: readonly CrdOnlyRuleCase[] = [
  ...virtualServiceRules(),
  ...destinationRuleRules(),
  row('WorkloadGroup', NET, '.spec.probe', 'oneOf', ONE_OF, 'spec.probe', { template: { serviceAccount: 'sa' }, probe: { httpGet: { port: 80 }, tcpSocket: { port: 80 } } }, { template: { serviceAccount: 'sa' }, probe: { tcpSocket: { port: 80 } } }),
  row(
    'EnvoyFilter',
    'networking.mesh.io/v1alpha3',
    '.spec.configPatches[].match',
    'oneOf',
    ONE_OF,
    'spec.configPatches[0].match',
    { configPatches: [{ applyTo: 'CLUSTER', match: { context: 'SIDECAR_OUTBOUND', listener: { portNumber: 80 }, cluster: { service: 'reviews' } }, patch: { operation: 'REMOVE' } }] },
    { configPatches: [{ applyTo: 'CLUSTER', match: { context: 'SIDECAR_OUTBOUND', cluster: { service: 'reviews' } }, patch: { operation: 'REMOVE' } }] },
  ),
  row(
    'Telemetry',
    'telemetry.mesh.io/v1',
    '.spec.metrics[].overrides[].match',
    'oneOf',
    ONE_OF,
    'spec.metrics[0].overrides[0].match',
    { metrics: [{ overrides: [{ match: { metric: 'REQUEST_COUNT', customMetric: 'my_metric' }, disabled: true }] }] },
    { metrics: [{ overrides: [{ match: { customMetric: 'my_metric' }, disabled: true }] }] },
  ),
  ...listMapRules(),
  row('Telemetry', 'telemetry.mesh.io/v1', '.spec.tracing[].randomSamplingPercentage', 'maximum', 'should be less than or equal to 100', 'spec.tracing[0].randomSamplingPercentage', { tracing: [{ randomSamplingPercentage: 100.5 }] }, { tracing: [{ randomSamplingPercentage: 100 }] }),
];
