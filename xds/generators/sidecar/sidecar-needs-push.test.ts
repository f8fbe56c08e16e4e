import assert from 'node:assert/strict';
import { parseConfigKey, pushRequest, withSnapshot, type PushRequest } from '../../../core/index.js';
import { TYPE_URL } from '../../server/contracts.js';
import { GeneratorRegistry } from '../../server/generator-registry.js';
import { SidecarGenerator } from './sidecar-generator.js';
import { SIDECAR_MESH, sidecarModel, sidecarNode } from './testing/sidecar-mesh.js';

const full = (...configs: string[]): PushRequest => pushRequest('config', { full: true, configs: configs.map(parseConfigKey) });
const eds = (...configs: string[]): PushRequest => pushRequest('endpoint', { full: false, configs: configs.map(parseConfigKey) });

// NOTE: as istiod's skippedCdsConfigs, skippedEdsConfigs, skippedLdsConfigs[SidecarProxy] and skippedRdsConfigs.
const cases: { name: string; push: PushRequest; want: [cds: boolean, eds: boolean, lds: boolean, rds: boolean] }[] = [
  { name: 'given a full push naming nothing should push every type', push: full(), want: [true, true, true, true] },
  { name: 'given an EDS-only push should push EDS only', push: eds('ServiceEntry/default/reviews.default.svc.cluster.local'), want: [false, true, false, false] },
  { name: 'given a service change should push every type', push: full('ServiceEntry/default/reviews'), want: [true, true, true, true] },
  { name: 'given a VirtualService change should push CDS, LDS and RDS (it widens a Sidecar scope), not EDS', push: full('VirtualService/default/reviews'), want: [true, false, true, true] },
  { name: 'given a DestinationRule change should push every type (routes carry its consistent hash, tcp_proxy its source-IP hash)', push: full('DestinationRule/default/reviews'), want: [true, true, true, true] },
  { name: 'given a Sidecar change should push every type', push: full('Sidecar/default/default'), want: [true, true, true, true] },
  { name: 'given a PeerAuthentication change should push CDS and LDS', push: full('PeerAuthentication/default/default'), want: [true, false, true, false] },
  { name: 'given an AuthorizationPolicy change should push LDS only', push: full('AuthorizationPolicy/default/deny'), want: [false, false, true, false] },
  { name: 'given a RequestAuthentication change should push LDS only', push: full('RequestAuthentication/default/jwt'), want: [false, false, true, false] },
  { name: 'given a Gateway change should push RDS only (no sidecar listener reads Gateways)', push: full('Gateway/default/gw'), want: [false, false, false, true] },
  { name: 'given a WorkloadEntry change should push no type (its service pushes)', push: full('WorkloadEntry/default/we'), want: [false, true, false, false] },
  { name: 'given a Secret change should push LDS and RDS only', push: full('Secret/default/cert'), want: [false, true, true, true] },
  { name: 'given a Telemetry, WasmPlugin or ProxyConfig change should push nothing', push: full('Telemetry/default/t', 'WasmPlugin/default/w', 'ProxyConfig/default/p'), want: [false, false, false, false] },
  { name: 'given a Gateway and a VirtualService change should push what the VirtualService needs', push: full('Gateway/default/gw', 'VirtualService/default/reviews'), want: [true, false, true, true] },
];

describe('needsPush of dataplane sidecars per type (CDS, EDS, LDS, RDS), through the registry', () => {
  const registry = new GeneratorRegistry();
  new SidecarGenerator({ sendUnhealthyEndpoints: false }).register(registry);
  const proxy = registry.initProxy(sidecarNode());
  const types = [TYPE_URL.cluster, TYPE_URL.endpoint, TYPE_URL.listener, TYPE_URL.route];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(types.map((t) => registry.needsPush(proxy, t, c.push)), c.want));
  }
});

describe('needsPush of sidecar CDS for a push naming only VirtualServices, read from the push snapshot', () => {
  const registry = new GeneratorRegistry();
  new SidecarGenerator({ sendUnhealthyEndpoints: false }).register(registry);
  const proxy = registry.initProxy(sidecarNode());
  const narrowing = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: Sidecar
metadata: { name: default, namespace: default }
spec:
  egress: [{ hosts: ["./productpage.default.svc.cluster.local"] }]
`;
  const cases: { name: string; yaml: string; configs: string[]; want: boolean }[] = [
    { name: 'given no Sidecar should not push CDS (no cluster is shaped by a VirtualService)', yaml: SIDECAR_MESH, configs: ['VirtualService/default/reviews'], want: false },
    { name: 'given a Sidecar whose egress narrows the scope should push CDS (VirtualService destinations join it)', yaml: narrowing, configs: ['VirtualService/default/reviews'], want: true },
    { name: 'given no Sidecar and a DestinationRule beside the VirtualService should push CDS', yaml: SIDECAR_MESH, configs: ['VirtualService/default/reviews', 'DestinationRule/default/reviews'], want: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const push = withSnapshot(full(...c.configs), sidecarModel(c.yaml).snapshot);
      assert.deepEqual([registry.needsPush(proxy, TYPE_URL.cluster, push), registry.needsPush(proxy, TYPE_URL.listener, push)], [c.want, true]);
    });
  }
});
