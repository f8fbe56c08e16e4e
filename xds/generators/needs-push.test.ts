import assert from 'node:assert/strict';
import { parseConfigKey, pushRequest, type ProxyNode, type PushRequest } from '../../core/index.js';
import { TYPE_URL } from '../server/contracts.js';
import { GeneratorRegistry } from '../server/generator-registry.js';
import { ProxylessGrpcGenerator } from './grpc-generator.js';
import { grpcNode } from './testing/model-fixtures.js';

const full = (...configs: string[]): PushRequest => pushRequest('config', { full: true, configs: configs.map(parseConfigKey) });
const eds = (...configs: string[]): PushRequest => pushRequest('endpoint', { full: false, configs: configs.map(parseConfigKey) });

const cases: { name: string; push: PushRequest; want: [boolean, boolean, boolean, boolean] }[] = [
  { name: 'given a full push naming nothing should push every type', push: full(), want: [true, true, true, true] },
  { name: 'given an EDS-only push should push EDS only', push: eds('ServiceEntry/qs/echo.qs.svc.cluster.local'), want: [false, true, false, false] },
  { name: 'given a VirtualService change should push RDS only', push: full('VirtualService/qs/echo'), want: [false, false, false, true] },
  { name: 'given a DestinationRule change should push CDS, EDS and RDS', push: full('DestinationRule/qs/echo'), want: [true, true, false, true] },
  { name: 'given an AuthorizationPolicy change should push LDS only', push: full('AuthorizationPolicy/qs/deny'), want: [false, false, true, false] },
  { name: 'given a PeerAuthentication change should push CDS and LDS', push: full('PeerAuthentication/qs/default'), want: [true, false, true, false] },
  { name: 'given a Sidecar change should push no proxyless CDS or EDS', push: full('Sidecar/qs/default'), want: [false, false, true, true] },
  { name: 'given a service change should push every type', push: full('ServiceEntry/qs/echo'), want: [true, true, true, true] },
];

describe('needsPush of proxyless gRPC clients per type (CDS, EDS, LDS, RDS), through the registry', () => {
  const registry = new GeneratorRegistry();
  new ProxylessGrpcGenerator({ enableCache: false, enableCdsCache: false, enableRdsCache: false, sendUnhealthyEndpoints: false }).register(registry);
  const proxy = registry.initProxy(grpcNode('qs'));
  const types = [TYPE_URL.cluster, TYPE_URL.endpoint, TYPE_URL.listener, TYPE_URL.route];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(types.map((t) => registry.needsPush(proxy, t, c.push)), c.want));
  }

  for (const type of ['sidecar', 'router'] as const) {
    it(`given a dataplane ${type} should refuse it, saying it is not implemented yet`, () => {
      const dataplane: ProxyNode = grpcNode('qs', { type, proxyless: false, metadata: {} });
      assert.throws(() => registry.initProxy(dataplane), new RegExp(`^NotImplementedError: not implemented yet: xDS generation for dataplane ${type} proxies`));
    });
  }
});
