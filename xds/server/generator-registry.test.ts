import assert from 'node:assert/strict';
import { parseConfigKey, pushRequest, type ProxyNode } from '../../core/index.js';
import { TYPE_URL, type TypeGenerator } from './contracts.js';
import { defaultNeedsPush, GeneratorRegistry } from './generator-registry.js';

function node(type: 'sidecar' | 'router', generator?: string): ProxyNode {
  return {
    id: `${type}~10.0.0.1~p.qs~qs.svc.cluster.local`,
    type,
    ipAddresses: ['10.0.0.1'],
    podName: 'p',
    namespace: 'qs',
    dnsDomain: 'qs.svc.cluster.local',
    metadata: generator ? { GENERATOR: generator } : {},
    proxyless: generator === 'grpc',
  };
}

function stub(typeUrl: string, name: string, unaffectedKinds?: ReadonlySet<string>): TypeGenerator & { readonly name: string } {
  return { name, typeUrl, ...(unaffectedKinds ? { unaffectedKinds } : {}), generate: () => ({ resources: [{ name, body: new Uint8Array() }] }) };
}

describe('GeneratorRegistry', () => {
  const registry = new GeneratorRegistry()
    .register({ generator: 'grpc' }, stub(TYPE_URL.cluster, 'grpc-cds', new Set(['Sidecar'])))
    .register({ proxyType: 'sidecar' }, stub(TYPE_URL.cluster, 'sidecar-cds'))
    .register({ any: true }, stub(TYPE_URL.listener, 'any-lds'));

  const lookups: { name: string; node: ProxyNode; typeUrl: string; want: string | undefined }[] = [
    { name: 'given GENERATOR metadata with a generator of its own should pick it over the proxy type', node: node('sidecar', 'grpc'), typeUrl: TYPE_URL.cluster, want: 'grpc-cds' },
    { name: 'given no GENERATOR metadata should pick the proxy type', node: node('sidecar'), typeUrl: TYPE_URL.cluster, want: 'sidecar-cds' },
    { name: 'given a GENERATOR nothing is registered for should fall back to the proxy type', node: node('sidecar', 'other'), typeUrl: TYPE_URL.cluster, want: 'sidecar-cds' },
    { name: 'given a proxy type nothing is registered for should miss', node: node('router'), typeUrl: TYPE_URL.cluster, want: undefined },
    { name: 'given a generator for the type URL alone should serve every proxy', node: node('router'), typeUrl: TYPE_URL.listener, want: 'any-lds' },
  ];
  for (const c of lookups) {
    it(c.name, () => assert.equal((registry.lookup(c.node, c.typeUrl) as { name?: string } | undefined)?.name, c.want));
  }

  it('given a Sidecar change should push clusters to a sidecar but not to a proxyless client', () => {
    const push = pushRequest('config', { full: true, configs: [parseConfigKey('Sidecar/qs/default')] });
    const sidecar = registry.initProxy(node('sidecar'));
    const proxyless = registry.initProxy(node('sidecar', 'grpc'));
    assert.equal(registry.needsPush(sidecar, TYPE_URL.cluster, push), true);
    assert.equal(registry.needsPush(proxyless, TYPE_URL.cluster, push), false);
  });

  it('given a proxy no generator serves should refuse it, saying it is not implemented yet', () => {
    const only = new GeneratorRegistry().register({ generator: 'grpc' }, stub(TYPE_URL.cluster, 'grpc-cds'));
    assert.throws(() => only.initProxy(node('router')), /^NotImplementedError: not implemented yet: xDS generation for dataplane router proxies \(meshd serves GENERATOR=grpc\)/);
  });

  it('given a type the proxy has no generator for should not serve it', async () => {
    assert.equal(await registry.generate(registry.initProxy(node('sidecar')), { typeUrl: TYPE_URL.route, names: new Set(['r']), wildcard: false }, pushRequest('debug', { full: true })), undefined);
    assert.equal(registry.needsPush(registry.initProxy(node('sidecar')), TYPE_URL.route, pushRequest('debug', { full: true })), false);
  });

  it('given the same scope and type twice should throw naming them', () => {
    assert.throws(() => new GeneratorRegistry().register({ proxyType: 'router' }, stub(TYPE_URL.route, 'a')).register({ proxyType: 'router' }, stub(TYPE_URL.route, 'b')), /already registered for type:router\/type.googleapis.com\/envoy.config.route.v3.RouteConfiguration/);
  });

  const rules: { name: string; typeUrl: string; full: boolean; configs: string[]; want: boolean }[] = [
    { name: 'given an endpoint-only push should carry EDS', typeUrl: TYPE_URL.endpoint, full: false, configs: ['ServiceEntry/qs/a'], want: true },
    { name: 'given an endpoint-only push should not carry CDS', typeUrl: TYPE_URL.cluster, full: false, configs: ['ServiceEntry/qs/a'], want: false },
    { name: 'given a full push naming nothing should carry every type', typeUrl: TYPE_URL.route, full: true, configs: [], want: true },
    { name: 'given only kinds the descriptor names as unaffected should skip the type', typeUrl: TYPE_URL.cluster, full: true, configs: ['AuthorizationPolicy/qs/a', 'Telemetry/qs/t'], want: false },
  ];
  for (const r of rules) {
    it(r.name, () => assert.equal(defaultNeedsPush(r.typeUrl, pushRequest(r.full ? 'config' : 'endpoint', { full: r.full, configs: r.configs.map(parseConfigKey) })), r.want));
  }
});
