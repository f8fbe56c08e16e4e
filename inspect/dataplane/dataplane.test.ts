import assert from 'node:assert/strict';
import { parseConfigDump } from '../configdump/index.js';
import { ReachError } from '../reach/index.js';
import { authzPolicies, authzTable } from './authz-check.js';
import { dataplaneStatsPath } from './dataplane-stats.js';

describe('dataplaneStatsPath', () => {
  const ok: { type: string; output: string; want: { port: number; path: string } }[] = [
    { type: 'server', output: 'short', want: { port: 15000, path: '/stats' } },
    { type: 'server', output: 'json', want: { port: 15000, path: '/stats?format=json' } },
    { type: 'server', output: 'yaml', want: { port: 15000, path: '/stats?format=json' } },
    { type: 'server', output: 'prom', want: { port: 15000, path: '/stats/prometheus' } },
    { type: 'server', output: 'prom-merged', want: { port: 15020, path: '/stats/prometheus' } },
    { type: 'clusters', output: 'short', want: { port: 15000, path: '/clusters' } },
    { type: 'clusters', output: 'json', want: { port: 15000, path: '/clusters?format=json' } },
  ];
  for (const c of ok) {
    it(`given --type ${c.type} -o ${c.output} should GET ${c.want.path} on ${c.want.port}`, () => {
      const got = dataplaneStatsPath(c.type, c.output, 15000);
      assert.deepEqual({ port: got.port, path: got.path }, c.want);
    });
  }
  const bad: { type: string; output: string; want: RegExp }[] = [
    { type: 'listeners', output: 'short', want: /--type: unknown type "listeners"/ },
    { type: 'server', output: 'xml', want: /--output: unknown format "xml"/ },
    { type: 'clusters', output: 'prom', want: /--output prom is for --type server only/ },
  ];
  for (const c of bad) {
    it(`given --type ${c.type} -o ${c.output} should refuse naming the flag`, () => {
      assert.throws(() => dataplaneStatsPath(c.type, c.output, 15000), (e: unknown) => e instanceof ReachError && c.want.test(e.message));
    });
  }
});

describe('authzPolicies', () => {
  const rbac = (name: string, set: Record<string, unknown>): Record<string, unknown> => ({ name, typed_config: set });
  const dump = (filters: Record<string, unknown>[]): string =>
    JSON.stringify({
      configs: [
        {
          '@type': 'type.googleapis.com/envoy.admin.v3.ListenersConfigDump',
          dynamic_listeners: [
            { active_state: { listener: { name: 'a', filter_chains: [{ filters: [{ name: 'envoy.filters.network.http_connection_manager', typed_config: { http_filters: filters } }] }] } } },
            // NOTE: the same policy in a second chain counts once.
            { active_state: { listener: { name: 'b', filter_chains: [{ filters: [rbac('envoy.filters.network.rbac', { rules: { action: 'DENY', policies: { 'ns[ns1]-policy[deny-all]-rule[0]': {} } } })] }] } } },
          ],
        },
      ],
    });

  it('given HTTP and network RBAC filters should list each policy once with its action and rule count', () => {
    const d = parseConfigDump(
      dump([
        rbac('envoy.filters.http.rbac', { rules: { action: 'DENY', policies: { 'ns[ns1]-policy[deny-all]-rule[0]': {} } } }),
        rbac('envoy.filters.http.rbac', {
          rules: { policies: { 'ns[ns1]-policy[allow]-rule[0]': {}, 'ns[ns1]-policy[allow]-rule[1]': {}, 'plain-name': {} } },
          shadow_rules: { policies: { 'mesh-ext-authz-ns[ns1]-policy[ext]-rule[0]': {} } },
        }),
        { name: 'envoy.filters.http.router' },
      ]),
      'dump.json',
    );
    assert.deepEqual(authzTable(authzPolicies(d)).trimEnd().split('\n').map((l) => l.split(/\s{2,}/)), [
      ['ACTION', 'AuthorizationPolicy', 'RULES'],
      ['DENY', 'deny-all.ns1', '1'],
      ['ALLOW', 'allow.ns1', '2'],
      ['ALLOW', 'plain-name', '1'],
      ['CUSTOM', 'ext.ns1', '1'],
    ]);
  });
  it('given listeners without RBAC filters should print the header alone', () => {
    assert.equal(authzTable(authzPolicies(parseConfigDump(dump([]).replace(/"envoy.filters.network.rbac"/, '"x"'), 'd'))), 'ACTION     AuthorizationPolicy     RULES\n');
  });
});
