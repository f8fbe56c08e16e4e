import assert from 'node:assert/strict';
import { ConfigStore } from '../collections/config-store.js';
import { ServiceEntryView } from '../collections/service-entry-view.js';
import type { Config } from './config.js';
import { defaultMeshConfig, defaultMeshNetworks } from './mesh-config.js';
import { PushContext } from './push-context.js';

function cfg(kind: string, namespace: string, name: string, spec: Record<string, unknown>, created = '2026-01-01T00:00:00Z'): Config {
  return { apiVersion: 'x/v1', kind, metadata: { name, namespace, creationTimestamp: created }, spec };
}

function build(configs: Config[]): PushContext {
  const store = new ConfigStore({ domain: 'cluster.local' });
  const view = new ServiceEntryView({ domain: 'cluster.local', drainingLabel: '' });
  const ch = store.apply(configs.map((c) => ({ type: 'added', key: { kind: c.kind, namespace: c.metadata.namespace, name: c.metadata.name }, object: c, resourceVersion: '1' })));
  view.update(ch.previous, ch.snapshot, ch.touched);
  return new PushContext({ configs: store.snapshot, registry: view.snapshot, meshConfig: defaultMeshConfig(), networks: defaultMeshNetworks(), domain: 'cluster.local', version: '1' });
}

const HOST = 'echo.qs.svc.cluster.local';
const SE = cfg('ServiceEntry', 'qs', 'echo', { hosts: [HOST], ports: [{ number: 80, name: 'http' }] });

describe('PushContext', () => {
  const drCases = [
    { name: 'given rules in the proxy, service and root namespaces should prefer the proxy namespace', from: 'client', want: 'client/dr' },
    { name: 'given no rule in the proxy namespace should use the service namespace', from: 'other', want: 'qs/dr' },
  ];
  for (const c of drCases) {
    it(c.name, () => {
      const ctx = build([
        SE,
        cfg('DestinationRule', 'qs', 'dr', { host: HOST }),
        cfg('DestinationRule', 'client', 'dr', { host: HOST }),
        cfg('DestinationRule', 'mesh-system', 'dr', { host: HOST }),
      ]);
      const dr = ctx.destinationRule(HOST, c.from)!;
      assert.equal(`${dr.metadata.namespace}/${dr.metadata.name}`, c.want);
    });
  }

  it('given a VirtualService exported only to its namespace should hide it from other namespaces', () => {
    const ctx = build([SE, cfg('VirtualService', 'qs', 'vs', { hosts: ['echo'], exportTo: ['.'] })]);
    assert.equal(ctx.virtualService(HOST, 'qs')?.metadata.name, 'vs');
    assert.equal(ctx.virtualService(HOST, 'elsewhere'), undefined);
  });

  it('given an exact and a wildcard VirtualService should prefer the exact host, then the oldest', () => {
    const ctx = build([
      SE,
      cfg('VirtualService', 'qs', 'wild', { hosts: ['*.qs.svc.cluster.local'] }, '2020-01-01T00:00:00Z'),
      cfg('VirtualService', 'qs', 'newer', { hosts: [HOST] }, '2026-02-01T00:00:00Z'),
      cfg('VirtualService', 'qs', 'older', { hosts: [HOST] }, '2026-01-01T00:00:00Z'),
    ]);
    assert.equal(ctx.virtualService(HOST, 'qs')?.metadata.name, 'older');
    assert.equal(ctx.virtualService('other.qs.svc.cluster.local', 'qs')?.metadata.name, 'wild');
  });

  const mtls = [
    { name: 'given no PeerAuthentication should be PERMISSIVE', configs: [], want: 'PERMISSIVE' },
    { name: 'given a mesh-wide STRICT should be STRICT', configs: [cfg('PeerAuthentication', 'mesh-system', 'default', { mtls: { mode: 'STRICT' } })], want: 'STRICT' },
    {
      name: 'given a namespace DISABLE under a mesh-wide STRICT should be DISABLE',
      configs: [cfg('PeerAuthentication', 'mesh-system', 'default', { mtls: { mode: 'STRICT' } }), cfg('PeerAuthentication', 'qs', 'ns', { mtls: { mode: 'DISABLE' } })],
      want: 'DISABLE',
    },
    {
      name: 'given a workload policy with UNSET should inherit the namespace mode',
      configs: [cfg('PeerAuthentication', 'qs', 'ns', { mtls: { mode: 'STRICT' } }), cfg('PeerAuthentication', 'qs', 'w', { selector: { matchLabels: { app: 'echo' } }, mtls: { mode: 'UNSET' } })],
      want: 'STRICT',
    },
  ];
  for (const c of mtls) {
    it(c.name, () => assert.equal(build(c.configs).mtlsMode('qs', { app: 'echo' }), c.want));
  }

  it('given policies in the root and workload namespaces should select those whose selector matches, split by action', () => {
    const ctx = build([
      cfg('AuthorizationPolicy', 'mesh-system', 'global-deny', { action: 'DENY', rules: [{}] }),
      cfg('AuthorizationPolicy', 'qs', 'allow-echo', { selector: { matchLabels: { app: 'echo' } }, rules: [{}] }),
      cfg('AuthorizationPolicy', 'qs', 'allow-other', { selector: { matchLabels: { app: 'other' } }, rules: [{}] }),
    ]);
    const p = ctx.authorizationPolicies('qs', { app: 'echo' });
    assert.deepEqual(p.deny.map((c) => c.metadata.name), ['global-deny']);
    assert.deepEqual(p.allow.map((c) => c.metadata.name), ['allow-echo']);
  });
});
