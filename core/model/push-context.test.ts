import assert from 'node:assert/strict';
import { ConfigStore } from '../collections/config-store.js';
import { ServiceEntryView } from '../collections/service-entry-view.js';
import type { Config } from './config.js';
import { defaultMeshConfig, defaultMeshNetworks } from './mesh-config.js';
import { destinationRuleKey, destinationRuleSources } from './destination-rules.js';
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
      const dr = ctx.destinationRule(HOST, { namespace: c.from, labels: {} })!;
      assert.equal(`${dr.metadata.namespace}/${dr.metadata.name}`, c.want);
    });
  }

  const sel = (app: string): Record<string, unknown> => ({ host: HOST, workloadSelector: { matchLabels: { app } } });
  const selectorCases: { name: string; configs: Config[]; from: string; labels: Record<string, string>; want: string | undefined }[] = [
    {
      name: 'given a selector rule matching the proxy and an older rule without selector should pick the selector rule',
      configs: [cfg('DestinationRule', 'client', 'all', { host: HOST }, '2020-01-01T00:00:00Z'), cfg('DestinationRule', 'client', 'picked', sel('a'))],
      from: 'client',
      labels: { app: 'a', version: 'v1' },
      want: 'client/picked',
    },
    {
      name: 'given a selector rule not matching the proxy should fall back to the rule without selector',
      configs: [cfg('DestinationRule', 'client', 'all', { host: HOST }, '2026-02-01T00:00:00Z'), cfg('DestinationRule', 'client', 'picked', sel('a'), '2020-01-01T00:00:00Z')],
      from: 'client',
      labels: { app: 'b' },
      want: 'client/all',
    },
    {
      name: 'given two selector rules matching the proxy and an older rule without selector should pick the oldest selector rule',
      configs: [
        cfg('DestinationRule', 'client', 'base', { host: HOST }, '2020-01-01T00:00:00Z'),
        cfg('DestinationRule', 'client', 'newer', sel('a'), '2026-02-01T00:00:00Z'),
        cfg('DestinationRule', 'client', 'older', sel('a'), '2026-01-01T00:00:00Z'),
      ],
      from: 'client',
      labels: { app: 'a' },
      want: 'client/older',
    },
    {
      name: 'given a selector rule in the service namespace should not apply it to a proxy of another namespace',
      configs: [cfg('DestinationRule', 'qs', 'picked', sel('a'))],
      from: 'client',
      labels: { app: 'a' },
      want: undefined,
    },
    {
      name: 'given only a selector rule not matching in the proxy namespace should not fall back to the service namespace (as istiod)',
      configs: [cfg('DestinationRule', 'client', 'picked', sel('a')), cfg('DestinationRule', 'qs', 'dr', { host: HOST })],
      from: 'client',
      labels: { app: 'b' },
      want: undefined,
    },
    {
      name: 'given a selector rule with empty matchLabels should select every proxy of its namespace',
      configs: [cfg('DestinationRule', 'client', 'all', { host: HOST }, '2020-01-01T00:00:00Z'), cfg('DestinationRule', 'client', 'every', { host: HOST, workloadSelector: {} })],
      from: 'client',
      labels: { app: 'z' },
      want: 'client/every',
    },
    {
      name: 'given a root-namespace proxy should pick a root selector rule that matches it over an older private root rule',
      configs: [
        cfg('DestinationRule', 'mesh-system', 'base', { host: HOST, exportTo: ['.'] }, '2020-01-01T00:00:00Z'),
        cfg('DestinationRule', 'mesh-system', 'picked', sel('gw')),
        cfg('DestinationRule', 'qs', 'dr', { host: HOST }),
      ],
      from: 'mesh-system',
      labels: { app: 'gw' },
      want: 'mesh-system/picked',
    },
    {
      name: 'given a root-namespace proxy and a public root rule should prefer the service namespace rule (as istiod)',
      configs: [cfg('DestinationRule', 'mesh-system', 'root', { host: HOST }, '2020-01-01T00:00:00Z'), cfg('DestinationRule', 'qs', 'dr', { host: HOST })],
      from: 'mesh-system',
      labels: {},
      want: 'qs/dr',
    },
    {
      name: 'given a rule in a third namespace exported everywhere should not apply it (istiod looks in the proxy, service and root namespaces only)',
      configs: [cfg('DestinationRule', 'third', 'dr', { host: HOST, exportTo: ['*'] })],
      from: 'client',
      labels: {},
      want: undefined,
    },
  ];
  for (const c of selectorCases) {
    it(c.name, () => {
      const dr = build([SE, ...c.configs]).destinationRule(HOST, { namespace: c.from, labels: c.labels });
      assert.equal(dr ? `${dr.metadata.namespace}/${dr.metadata.name}` : undefined, c.want);
    });
  }

  const subsetsOf = (c: Config | undefined): string[] => ((c?.spec as { subsets?: { name: string }[] } | undefined)?.subsets ?? []).map((x) => x.name);
  const policyOf = (c: Config | undefined): unknown => (c?.spec as { trafficPolicy?: unknown } | undefined)?.trafficPolicy;
  const at = (ctx: PushContext, labels: Record<string, string> = {}): Config | undefined => ctx.destinationRule(HOST, { namespace: 'client', labels });

  const dr = (ns: string, name: string, host: string, extra: Record<string, unknown> = {}): Config => cfg('DestinationRule', ns, name, { host, ...extra });
  const WILD_EXT = '*.wild.example.com';
  const WILD_API = '*.api.example.com';
  const SE_WILD = cfg('ServiceEntry', 'ext', 'wild', { hosts: [WILD_EXT, WILD_API], ports: [{ number: 443, name: 'tls' }], location: 'MESH_EXTERNAL', resolution: 'NONE' });
  // NOTE: a second service of the namespace: rows whose first answer the exact-host index alone gives check it too.
  const HOST2 = 'other.qs.svc.cluster.local';
  const SE2 = cfg('ServiceEntry', 'qs', 'other', { hosts: [HOST2], ports: [{ number: 80, name: 'http' }] });
  type Also = { host: string; from: string; want: string | undefined };
  const wildcardCases: { name: string; configs: Config[]; host?: string; from: string; labels?: Record<string, string>; want: string | undefined; also?: Also }[] = [
    {
      name: 'given an exact and a wildcard rule in the service namespace should take the exact host',
      configs: [dr('qs', 'wild', '*.qs.svc.cluster.local', {}), dr('qs', 'exact', HOST)],
      from: 'other',
      want: 'qs/exact',
      also: { host: HOST2, from: 'other', want: 'qs/wild' },
    },
    {
      name: 'given two wildcard rules in one namespace should take the longest matching host',
      configs: [dr('qs', 'cluster', '*.cluster.local'), dr('qs', 'ns', '*.qs.svc.cluster.local'), dr('qs', 'star', '*')],
      from: 'other',
      want: 'qs/ns',
    },
    {
      name: 'given "*" and "*.cluster.local" in the root namespace should take "*.cluster.local"',
      configs: [dr('mesh-system', 'star', '*'), dr('mesh-system', 'cluster', '*.cluster.local')],
      from: 'client',
      want: 'mesh-system/cluster',
    },
    {
      name: 'given only a "*" rule in the root namespace should apply it to every host',
      configs: [dr('mesh-system', 'star', '*')],
      from: 'client',
      want: 'mesh-system/star',
    },
    {
      name: 'given a longer wildcard rule of another domain and "*" should apply "*" only',
      configs: [dr('mesh-system', 'ext', '*.example.com'), dr('mesh-system', 'star', '*')],
      from: 'client',
      want: 'mesh-system/star',
    },
    {
      name: 'given a mesh-wide "*.cluster.local" rule in the root namespace should apply it to a proxy of the service namespace',
      configs: [dr('mesh-system', 'mesh-wide', '*.cluster.local')],
      from: 'qs',
      want: 'mesh-system/mesh-wide',
    },
    {
      name: 'given a mesh-wide root rule and an exact rule in the service namespace should prefer the service namespace',
      configs: [dr('mesh-system', 'mesh-wide', '*.cluster.local', {}), dr('qs', 'exact', HOST)],
      from: 'client',
      want: 'qs/exact',
      also: { host: HOST2, from: 'client', want: 'mesh-system/mesh-wide' },
    },
    {
      name: 'given an exact root rule and a wildcard rule of the service namespace should prefer the service namespace (namespace order before specificity)',
      configs: [dr('mesh-system', 'exact', HOST), dr('qs', 'wild', '*.qs.svc.cluster.local')],
      from: 'client',
      want: 'qs/wild',
    },
    {
      name: 'given a wildcard rule in the proxy namespace and an exact rule in the service namespace should take the proxy namespace rule (as istiod)',
      configs: [dr('client', 'local-wild', '*.cluster.local'), dr('qs', 'exact', HOST)],
      from: 'client',
      want: 'client/local-wild',
    },
    {
      name: 'given a service-namespace wildcard rule exported only to its namespace should leave other namespaces to the root rule',
      configs: [dr('qs', 'private', '*.qs.svc.cluster.local', { exportTo: ['.'] }), dr('mesh-system', 'mesh-wide', '*.cluster.local')],
      from: 'client',
      want: 'mesh-system/mesh-wide',
    },
    {
      name: 'given a service-namespace wildcard rule exported only to its namespace should still serve that namespace',
      configs: [dr('qs', 'private', '*.qs.svc.cluster.local', { exportTo: ['.'] }), dr('mesh-system', 'mesh-wide', '*.cluster.local')],
      from: 'qs',
      want: 'qs/private',
    },
    {
      name: 'given the most specific exported rule not exported to the proxy should not try a less specific one of that namespace but the root namespace (as istiod)',
      configs: [dr('qs', 'to-client', '*.qs.svc.cluster.local', { exportTo: ['client'] }), dr('qs', 'public', '*.cluster.local', { exportTo: ['*'] }), dr('mesh-system', 'star', '*')],
      from: 'other',
      want: 'mesh-system/star',
    },
    {
      name: 'given a selector rule for a wildcard host and an exact rule in the proxy namespace should take the exact host, selector or not',
      configs: [dr('client', 'picked-wild', '*.cluster.local', { workloadSelector: { matchLabels: { app: 'a' } } }), dr('client', 'exact', HOST)],
      from: 'client',
      labels: { app: 'a' },
      want: 'client/exact',
      also: { host: HOST2, from: 'client', want: 'client/picked-wild' },
    },
    {
      name: 'given a selector rule for a wildcard host should pick the proxies it selects',
      configs: [dr('client', 'picked-wild', '*.cluster.local', { workloadSelector: { matchLabels: { app: 'a' } } }), dr('qs', 'exact', HOST)],
      from: 'client',
      labels: { app: 'a' },
      want: 'client/picked-wild',
    },
    {
      name: 'given a short-name rule in the service namespace and a root wildcard should resolve the short name to the exact host',
      configs: [dr('qs', 'short', 'echo'), dr('mesh-system', 'mesh-wide', '*.cluster.local')],
      from: 'client',
      want: 'qs/short',
      also: { host: HOST2, from: 'client', want: 'mesh-system/mesh-wide' },
    },
    {
      name: 'given a short wildcard label ("*echo") should resolve it in the rule namespace as istiod and match the service',
      configs: [dr('qs', 'wild-label', '*echo'), dr('mesh-system', 'mesh-wide', '*.cluster.local')],
      from: 'client',
      want: 'qs/wild-label',
      also: { host: HOST2, from: 'client', want: 'mesh-system/mesh-wide' },
    },
    {
      name: 'given wildcard service hosts should match a rule of the same wildcard host first, else a less specific wildcard, never a plain host under it',
      configs: [SE_WILD, dr('mesh-system', 'wider', '*.example.com'), dr('mesh-system', 'same', WILD_EXT), dr('mesh-system', 'plain', 'a.api.example.com')],
      host: WILD_EXT,
      from: 'client',
      want: 'mesh-system/same',
      also: { host: WILD_API, from: 'client', want: 'mesh-system/wider' },
    },
  ];
  for (const c of wildcardCases) {
    it(c.name, () => {
      const ctx = build([SE, SE2, ...c.configs]);
      const name = (x: Config | undefined): string | undefined => (x ? `${x.metadata.namespace}/${x.metadata.name}` : undefined);
      assert.equal(name(ctx.destinationRule(c.host ?? HOST, { namespace: c.from, labels: c.labels ?? {} })), c.want);
      if (c.also) assert.equal(name(ctx.destinationRule(c.also.host, { namespace: c.also.from, labels: c.labels ?? {} })), c.also.want, c.also.host);
    });
  }

  it('given two wildcard rules for one host in one namespace should merge them as rules of an exact host', () => {
    const ctx = build([
      SE,
      dr('mesh-system', 'a', '*.cluster.local', { subsets: [{ name: 'v1', labels: { version: 'v1' } }] }),
      cfg('DestinationRule', 'mesh-system', 'b', { host: '*.cluster.local', subsets: [{ name: 'v2', labels: { version: 'v2' } }] }, '2026-02-01T00:00:00Z'),
    ]);
    const got = ctx.destinationRule(HOST, { namespace: 'client', labels: {} });
    assert.deepEqual(destinationRuleSources(got!), ['DestinationRule/mesh-system/a', 'DestinationRule/mesh-system/b']);
    assert.deepEqual(subsetsOf(got), ['v1', 'v2']);
  });

  it('given two rules without selector for one host in one namespace should merge them as istiod: subsets appended, the older top-level policy kept', () => {
    const ctx = build([
      SE,
      cfg('DestinationRule', 'client', 'older', { host: HOST, trafficPolicy: { loadBalancer: { simple: 'RANDOM' } }, subsets: [{ name: 'v1', labels: { v: '1' } }] }, '2020-01-01T00:00:00Z'),
      cfg('DestinationRule', 'client', 'newer', { host: HOST, trafficPolicy: { loadBalancer: { simple: 'LEAST_REQUEST' } }, subsets: [{ name: 'v1', labels: { v: 'x' } }, { name: 'v2', labels: { v: '2' } }] }, '2026-01-01T00:00:00Z'),
    ]);
    const dr = at(ctx);
    assert.equal(dr?.metadata.name, 'older');
    assert.deepEqual(subsetsOf(dr), ['v1', 'v2']);
    assert.deepEqual(policyOf(dr), { loadBalancer: { simple: 'RANDOM' } });
    assert.deepEqual(destinationRuleSources(dr!), ['DestinationRule/client/older', 'DestinationRule/client/newer']);
    assert.equal(destinationRuleKey(dr!), 'DestinationRule/client/older+DestinationRule/client/newer');
  });

  it('given an older rule without a top-level policy should take the newer rule\'s when merging', () => {
    const ctx = build([
      SE,
      cfg('DestinationRule', 'client', 'older', { host: HOST, subsets: [{ name: 'v1' }] }, '2020-01-01T00:00:00Z'),
      cfg('DestinationRule', 'client', 'newer', { host: HOST, trafficPolicy: { tls: { mode: 'DISABLE' } } }, '2026-01-01T00:00:00Z'),
    ]);
    assert.deepEqual(policyOf(at(ctx)), { tls: { mode: 'DISABLE' } });
    assert.deepEqual(subsetsOf(at(ctx)), ['v1']);
  });

  it('given two selector rules with the same selector should merge them, and one with another selector stays apart', () => {
    const ctx = build([
      SE,
      cfg('DestinationRule', 'client', 'a1', { ...sel('a'), subsets: [{ name: 's1' }] }, '2020-01-01T00:00:00Z'),
      cfg('DestinationRule', 'client', 'a2', { ...sel('a'), subsets: [{ name: 's2' }] }, '2021-01-01T00:00:00Z'),
      cfg('DestinationRule', 'client', 'b', { ...sel('b'), subsets: [{ name: 's3' }] }, '2022-01-01T00:00:00Z'),
    ]);
    assert.deepEqual(subsetsOf(at(ctx, { app: 'a' })), ['s1', 's2']);
    assert.deepEqual(subsetsOf(at(ctx, { app: 'b' })), ['s3']);
  });

  it('given a selector rule and a rule without selector exported to "." should merge the latter into the former and leave unpicked proxies without a rule (as istiod)', () => {
    const ctx = build([
      SE,
      cfg('DestinationRule', 'client', 'picked', { ...sel('a'), subsets: [{ name: 's1' }] }, '2026-01-01T00:00:00Z'),
      cfg('DestinationRule', 'client', 'private', { host: HOST, exportTo: ['.'], subsets: [{ name: 'p1' }] }, '2020-01-01T00:00:00Z'),
    ]);
    assert.deepEqual(subsetsOf(at(ctx, { app: 'a' })), ['s1', 'p1']);
    assert.equal(at(ctx, { app: 'b' }), undefined);
  });

  it('given a selector rule and a rule without selector exported by default should keep them apart', () => {
    const ctx = build([
      SE,
      cfg('DestinationRule', 'client', 'picked', { ...sel('a'), subsets: [{ name: 's1' }] }),
      cfg('DestinationRule', 'client', 'all', { host: HOST, subsets: [{ name: 'p1' }] }),
    ]);
    assert.deepEqual(subsetsOf(at(ctx, { app: 'a' })), ['s1']);
    assert.deepEqual(subsetsOf(at(ctx, { app: 'b' })), ['p1']);
  });

  it('given exported rules of the service namespace merged should filter them by the merged export set', () => {
    const ctx = build([
      SE,
      cfg('DestinationRule', 'qs', 'first', { host: HOST, exportTo: ['client'], subsets: [{ name: 'f' }] }, '2020-01-01T00:00:00Z'),
      cfg('DestinationRule', 'qs', 'second', { host: HOST, exportTo: ['client'], subsets: [{ name: 's' }] }, '2026-01-01T00:00:00Z'),
    ]);
    assert.deepEqual(subsetsOf(at(ctx)), ['f', 's']);
    assert.equal(ctx.destinationRule(HOST, { namespace: 'other', labels: {} }), undefined);
  });

  it('given rules of one namespace and host repeating a subset name should count the host once (pilot_destrule_subsets)', () => {
    const ctx = build([
      SE,
      cfg('DestinationRule', 'client', 'a', { host: HOST, subsets: [{ name: 'v1' }] }),
      cfg('DestinationRule', 'client', 'b', { host: HOST, subsets: [{ name: 'v1' }, { name: 'v2' }] }),
      cfg('DestinationRule', 'qs', 'c', { host: 'echo', subsets: [{ name: 'v1' }] }),
      cfg('DestinationRule', 'qs', 'd', { host: 'other', subsets: [{ name: 'v1' }] }),
      cfg('DestinationRule', 'qs', 'e', { host: 'other', workloadSelector: { matchLabels: { app: 'x' } }, subsets: [{ name: 'v1' }] }),
    ]);
    assert.equal(ctx.duplicateSubsetHosts(), 1);
  });

  it('given selector rules should name the ones picking a proxy in its selection, and none for others', () => {
    const ctx = build([SE, cfg('DestinationRule', 'client', 'a', sel('a')), cfg('DestinationRule', 'client', 'all', { host: HOST })]);
    assert.equal(ctx.destinationRuleSelection({ namespace: 'client', labels: { app: 'a' } }), 'DestinationRule/client/a');
    assert.equal(ctx.destinationRuleSelection({ namespace: 'client', labels: { app: 'b' } }), '');
    assert.equal(ctx.destinationRuleSelection({ namespace: 'other', labels: { app: 'a' } }), '');
  });

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
