import assert from 'node:assert/strict';
import { validateConfig } from '../validate-config.js';

const dr = (spec: Record<string, unknown>, namespace = 'demo'): unknown => ({
  apiVersion: 'networking.mesh.io/v1',
  kind: 'DestinationRule',
  metadata: { name: 'echo', namespace },
  spec: { host: 'echo', ...spec },
});

/** Errors and warnings as `path: message` lines. */
function issuesOf(obj: unknown): { errors: string[]; warnings: string[] } {
  const r = validateConfig(obj);
  return { errors: r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`), warnings: r.warnings.map((w) => `${w.path}: ${w.message}`) };
}

describe('DestinationRule workloadSelector validation (as Istio)', () => {
  const sel = { workloadSelector: { matchLabels: { app: 'a' } } };
  const cases: { name: string; spec: Record<string, unknown>; errors: string[]; warnings?: string[] }[] = [
    { name: 'given a selector exported to "." should accept it', spec: { ...sel, exportTo: ['.'] }, errors: [] },
    { name: 'given a selector exported to its own namespace by name should accept it', spec: { ...sel, exportTo: ['demo'] }, errors: [] },
    {
      name: 'given a selector exported to every namespace should refuse it',
      spec: { ...sel, exportTo: ['*'] },
      errors: ['spec.exportTo: destination rule with workload selector cannot have exportTo beyond current namespace'],
    },
    {
      name: 'given a selector exported to another namespace should refuse it',
      spec: { ...sel, exportTo: ['other'] },
      errors: ['spec.exportTo: destination rule with workload selector cannot have exportTo beyond current namespace'],
    },
    {
      name: 'given a selector exported to its namespace and another should refuse the extra entry',
      spec: { ...sel, exportTo: ['.', 'other'] },
      errors: ['spec.exportTo: destination rule with workload selector cannot have multiple entries in exportTo'],
    },
    {
      name: 'given "." and the namespace name together should refuse the duplicate',
      spec: { exportTo: ['.', 'demo'] },
      errors: ['spec.exportTo: duplicate entries in exportTo: . and current namespace demo'],
    },
    {
      name: 'given a selector without labels should warn and accept it',
      spec: { workloadSelector: {} },
      errors: [],
      warnings: ['spec.workloadSelector: workload selector specified without labels'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = issuesOf(dr(c.spec));
      assert.deepEqual(got.errors, c.errors);
      assert.deepEqual(got.warnings, c.warnings ?? []);
    });
  }
});

describe('DestinationRule host validation (as Istio ValidateWildcardDomain)', () => {
  it('given the wildcard hosts Istio accepts ("*", "*.cluster.local", "*echo", "*-echo.", "*foo.", upper case, a trailing dot) should accept them all', () => {
    const hosts = ['*', '*.cluster.local', '*.demo.svc.cluster.local', '*echo', '*-echo.example.com', '*foo.example.com', 'Echo.Example.com.'];
    assert.deepEqual(hosts.flatMap((host) => issuesOf(dr({ host })).errors), []);
  });
  const cases: { name: string; host: string; error: string }[] = [
    { name: 'given a wildcard in a later label should refuse it', host: 'foo.*.com', error: 'domain name "foo.*.com" invalid (label "*" invalid)' },
    { name: 'given a double wildcard should refuse it', host: '**.example.com', error: 'domain name "**.example.com" invalid (label "**" invalid)' },
    { name: 'given an all-numeric top-level domain should refuse it', host: 'echo.123', error: 'domain name "echo.123" invalid (top level domain "123" cannot be all-numeric)' },
    { name: 'given an underscore in a label should refuse it', host: 'echo.my_ns.svc', error: 'domain name "echo.my_ns.svc" invalid (label "my_ns" invalid)' },
    { name: 'given an empty host should refuse it', host: '', error: 'empty domain name not allowed' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = issuesOf(dr({ host: c.host })).errors.filter((e) => e.startsWith('spec.host'));
      assert.deepEqual(got, [`spec.host: ${c.error}`]);
    });
  }
});

describe('DestinationRule consistent hash cookie attributes (as Istio validateLoadBalancer)', () => {
  const cookie = (attributes: unknown[]): Record<string, unknown> => ({ trafficPolicy: { loadBalancer: { consistentHash: { httpCookie: { name: 'sticky', ttl: '60s', attributes } } } } });
  const at = 'spec.trafficPolicy.loadBalancer.consistentHash.httpCookie.attributes';
  const cases: { name: string; spec: Record<string, unknown>; errors: string[] }[] = [
    { name: 'given distinct attribute names, with and without values, should accept them', spec: cookie([{ name: 'SameSite', value: 'Strict' }, { name: 'Secure' }]), errors: [] },
    { name: 'given an empty attribute name should refuse it at its index', spec: cookie([{ name: 'Secure' }, { name: '', value: 'x' }]), errors: [`${at}[1].name: cookie attribute name cannot be empty`] },
    { name: 'given a repeated attribute name should refuse the repeat', spec: cookie([{ name: 'SameSite', value: 'Lax' }, { name: 'SameSite', value: 'Strict' }]), errors: [`${at}[1].name: duplicate cookie attribute name: SameSite`] },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(issuesOf(dr(c.spec)).errors, c.errors));
  }
});

describe('DestinationRule consistent hash keys and algorithms (as Istio validateLoadBalancer and its CRD)', () => {
  const hash = (consistentHash: Record<string, unknown>): Record<string, unknown> => ({ trafficPolicy: { loadBalancer: { consistentHash } } });
  const at = 'spec.trafficPolicy.loadBalancer.consistentHash';
  const cases: { name: string; spec: Record<string, unknown>; errors: string[] }[] = [
    { name: 'given no hash key (a ring size only) should accept it', spec: hash({ ringHash: { minimumRingSize: 64 } }), errors: [] },
    { name: 'given an empty consistentHash should accept it', spec: hash({}), errors: [] },
    { name: 'given useSourceIp false should accept it', spec: hash({ useSourceIp: false }), errors: [] },
    { name: 'given a cookie ttl of 0s (a session cookie) should accept it', spec: hash({ httpCookie: { name: 'sticky', ttl: '0s' } }), errors: [] },
    { name: 'given a cookie with an empty name should refuse it', spec: hash({ httpCookie: { name: '' } }), errors: [`${at}.httpCookie: name required for HttpCookie`] },
    { name: 'given a prime maglev table size should accept it', spec: hash({ httpHeaderName: 'x-user', maglev: { tableSize: 65537 } }), errors: [] },
    { name: 'given maglev without a table size should refuse it', spec: hash({ maglev: {} }), errors: [`${at}.maglev.tableSize: tableSize must be set for maglev`] },
    { name: 'given a maglev table size that is not prime should refuse it', spec: hash({ maglev: { tableSize: 1000 } }), errors: [`${at}.maglev.tableSize: tableSize must be a prime number for maglev (got 1000)`] },
    { name: 'given a maglev table size of 5000011 or more should refuse it', spec: hash({ maglev: { tableSize: 5000011 } }), errors: [`${at}.maglev.tableSize: tableSize must be less than 5000011 for maglev`] },
    { name: 'given two hash keys should refuse them (the CRD allows at most one)', spec: hash({ httpHeaderName: 'x', useSourceIp: true }), errors: [`${at}: only one of httpHeaderName, httpCookie, useSourceIp or httpQueryParameterName may be set`] },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(issuesOf(dr(c.spec)).errors, c.errors));
  }
});
