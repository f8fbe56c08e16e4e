import assert from 'node:assert/strict';
import type {
  AnyMeshConfig,
  AuthorizationPolicySpec,
  ConnectionPoolSettings,
  ConsistentHashLB,
  DestinationRuleSpec,
  EnvoyFilterSpec,
  HTTPRoute,
  MeshOperator,
  ServiceEntrySpec,
  Subset,
  VirtualService,
} from './types.js';

// NOTE: these tests are mostly compile-time: each @ts-expect-error fails the build when the inferred type
// becomes too loose, and the assertions keep the values alive.
describe('crds/types', () => {
  it('given a typed VirtualService literal should compile and keep its values', () => {
    const route: HTTPRoute = {
      match: [{ uri: { prefix: '/api' }, headers: { 'x-user': { exact: 'a' } } }],
      route: [{ destination: { host: 'reviews', subset: 'v1', port: { number: 9080 } }, weight: 100 }],
      timeout: '1s',
    };
    const vs: VirtualService = {
      apiVersion: 'networking.mesh.io/v1',
      kind: 'VirtualService',
      metadata: { name: 'reviews', namespace: 'default' },
      spec: { hosts: ['reviews'], http: [route] },
    };
    assert.equal(vs.spec.http?.[0]?.route?.[0]?.destination.host, 'reviews');
  });

  it('given wrong field types should not compile', () => {
    const dr: DestinationRuleSpec = { host: 'reviews', subsets: [{ name: 'v1', labels: { version: 'v1' } }] };
    // @ts-expect-error: a subset name is a string
    const badSubset: Subset = { name: 5 };
    // @ts-expect-error: 'BOGUS' is not a resolution
    const badSe: ServiceEntrySpec = { hosts: ['x'], resolution: 'BOGUS' };
    // @ts-expect-error: hosts is required
    const noHosts: ServiceEntrySpec = { resolution: 'DNS' };
    // @ts-expect-error: 'REJECT' is not an action
    const badAp: AuthorizationPolicySpec = { action: 'REJECT' };
    // @ts-expect-error: an inline nested object keeps its required keys (httpCookie needs name)
    const badHash: ConsistentHashLB = { httpCookie: { path: '/' } };
    // Inline nested objects without required keys keep every key optional.
    const pool: ConnectionPoolSettings = { tcp: { maxConnections: 1 } };
    assert.equal(dr.subsets?.[0]?.name, 'v1');
    assert.equal(pool.tcp?.maxConnections, 1);
    assert.ok(badSubset && badSe && noHosts && badAp && badHash);
  });

  it('given free-form and int-or-string fields should accept any values there', () => {
    const ef: EnvoyFilterSpec = {
      configPatches: [{ applyTo: 'CLUSTER', patch: { operation: 'MERGE', value: { connect_timeout: '1s', nested: [1, { a: true }] } } }],
    };
    const op: MeshOperator = {
      apiVersion: 'install.mesh.io/v1alpha1',
      kind: 'MeshOperator',
      metadata: { name: 'x' },
      spec: { tag: 124, values: { global: { hub: 'h' } }, components: { pilot: { enabled: true, tag: '1.2' } } },
      status: { status: 'HEALTHY' },
    };
    assert.equal(op.spec.tag, 124);
    assert.equal(ef.configPatches?.[0]?.patch?.operation, 'MERGE');
  });

  it('given AnyMeshConfig should narrow by kind', () => {
    const config = {
      apiVersion: 'networking.mesh.io/v1',
      kind: 'WorkloadEntry',
      metadata: { name: 'we' },
      spec: { address: '1.2.3.4' },
    } as AnyMeshConfig;
    const address = config.kind === 'WorkloadEntry' ? config.spec.address : undefined;
    assert.equal(address, '1.2.3.4');
  });
});
