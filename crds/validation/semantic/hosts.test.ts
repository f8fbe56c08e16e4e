/**
 * ServiceEntry `hosts` / `addresses` and VirtualService `hosts` as current Istio validates them
 * (pkg/config/validation: ValidateServiceEntry, ValidateVirtualService; agent: ValidateWildcardDomain,
 * ValidateFQDN, ValidatePartialWildCard, ValidateIPSubnet), accept and refuse, with Istio's messages.
 */
import assert from 'node:assert/strict';
import { validateConfig } from '../validate-config.js';

const LONG_LABEL = 'a'.repeat(64);
const LONG_NAME = `${'abcdefghij.'.repeat(23)}com`; // 256 characters

function serviceEntry(spec: Record<string, unknown>): { errors: string[]; warnings: string[] } {
  const r = validateConfig({
    apiVersion: 'networking.mesh.io/v1',
    kind: 'ServiceEntry',
    metadata: { name: 'se', namespace: 'demo' },
    spec: { location: 'MESH_EXTERNAL', ports: [{ number: 443, name: 'tls', protocol: 'TLS' }], ...spec },
  });
  const lines = (l: readonly { path: string; message: string }[]): string[] => l.map((e) => `${e.path}: ${e.message}`);
  return { errors: r.ok ? [] : lines(r.errors), warnings: lines(r.warnings) };
}

function virtualService(hosts: string[], more: Record<string, unknown> = {}): string[] {
  const r = validateConfig({
    apiVersion: 'networking.mesh.io/v1',
    kind: 'VirtualService',
    metadata: { name: 'vs', namespace: 'demo' },
    spec: { hosts, http: [{ route: [{ destination: { host: 'reviews' } }] }], ...more },
  });
  return r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`);
}

describe('ServiceEntry hosts and addresses (Istio ValidateServiceEntry)', () => {
  const cases: { name: string; spec: Record<string, unknown>; errors?: string[]; warnings?: string[] }[] = [
    { name: 'a short name', spec: { hosts: ['reviews'], resolution: 'DNS' } },
    { name: 'a trailing dot', spec: { hosts: ['api.example.com.'], resolution: 'DNS' } },
    { name: 'upper-case labels', spec: { hosts: ['API.Example.com'], resolution: 'DNS' } },
    { name: 'a prefix wildcard with NONE resolution', spec: { hosts: ['*.example.com'], resolution: 'NONE' } },
    {
      name: '"*" alone',
      spec: { hosts: ['*'], resolution: 'NONE' },
      errors: ['spec.hosts[0]: hostname cannot be wildcard (invalid host *)'],
    },
    {
      name: 'a partial wildcard label "*foo.example.com" (accepted with a warning)',
      spec: { hosts: ['*foo.example.com'], resolution: 'NONE' },
      warnings: ['spec.hosts[0]: partial wildcard "*foo.example.com" not allowed'],
    },
    {
      name: 'a wildcard inside the name',
      spec: { hosts: ['api.*.example.com'], resolution: 'NONE' },
      errors: ['spec.hosts[0]: domain name "api.*.example.com" invalid (label "*" invalid)'],
      warnings: ['spec.hosts[0]: partial wildcard "api.*.example.com" not allowed'],
    },
    {
      name: 'an all-numeric top-level domain',
      spec: { hosts: ['api.example.123'], resolution: 'NONE' },
      errors: ['spec.hosts[0]: domain name "api.example.123" invalid (top level domain "123" cannot be all-numeric)'],
    },
    {
      name: 'a label longer than 63 characters',
      spec: { hosts: [`${LONG_LABEL}.example.com`], resolution: 'NONE' },
      errors: [`spec.hosts[0]: domain name "${LONG_LABEL}.example.com" invalid (label "${LONG_LABEL}" invalid)`],
    },
    {
      name: 'a name longer than 255 characters',
      spec: { hosts: [LONG_NAME], resolution: 'NONE' },
      errors: [`spec.hosts[0]: domain name "${LONG_NAME}" too long (max 255)`],
    },
    {
      name: 'an underscore',
      spec: { hosts: ['my_api.example.com'], resolution: 'NONE' },
      errors: ['spec.hosts[0]: domain name "my_api.example.com" invalid (label "my_api" invalid)'],
    },
    {
      name: 'a prefix wildcard with DNS resolution and no endpoints (only the first such host)',
      spec: { hosts: ['ok.example.com', '*.example.com', '*.example.org'], resolution: 'DNS' },
      errors: [
        'spec.hosts[1]: hosts must be FQDN or contain only prefix wildcards if no endpoints are provided for resolution mode DNS, domain name "*.example.com" invalid (label "*" invalid)',
      ],
    },
    { name: 'a prefix wildcard with DNS resolution and endpoints', spec: { hosts: ['*.example.com'], resolution: 'DNS', endpoints: [{ address: 'lb.example.com' }] } },
    { name: 'IPv4, IPv6 and CIDR addresses', spec: { hosts: ['db.example.com'], resolution: 'NONE', addresses: ['10.0.0.1', '2001:db8::1', '10.1.0.0/16', '2001:db8::/64'] } },
    {
      name: 'bad addresses',
      spec: { hosts: ['db.example.com'], resolution: 'NONE', addresses: ['10.0.0.300', '10.1.0.0/33', '10.1.0.0/016', 'db.example.com'] },
      errors: [
        'spec.addresses[0]: 10.0.0.300 is not a valid IP',
        'spec.addresses[1]: 10.1.0.0/33 is not a valid CIDR block',
        'spec.addresses[2]: 10.1.0.0/016 is not a valid CIDR block',
        'spec.addresses[3]: db.example.com is not a valid IP',
      ],
    },
  ];
  for (const c of cases) {
    it(`given ${c.name} should ${c.errors ? 'refuse it with Istio\'s messages' : 'accept it'}${c.warnings ? ' and warn' : ''}`, () => {
      const got = serviceEntry(c.spec);
      assert.deepEqual(got.errors, c.errors ?? []);
      assert.deepEqual(got.warnings.filter((w) => w.startsWith('spec.hosts')), c.warnings ?? []);
    });
  }
});

describe('VirtualService hosts (Istio ValidateVirtualService)', () => {
  const cases: { name: string; hosts: string[]; more?: Record<string, unknown>; errors?: string[] }[] = [
    { name: 'a short name, an FQDN and a prefix wildcard', hosts: ['reviews', 'ratings.demo.svc.cluster.local', '*.example.com'] },
    { name: 'an IP address', hosts: ['10.0.0.1'] },
    { name: 'a "*foo" first label', hosts: ['*foo.example.com'] },
    { name: '"*" bound to a gateway only', hosts: ['*'], more: { gateways: ['demo/gw'] } },
    {
      name: '"*" for the mesh',
      hosts: ['*'],
      errors: ['spec.hosts[0]: wildcard host * is not allowed for virtual services bound to the mesh gateway'],
    },
    {
      name: '"*" for a gateway and the mesh',
      hosts: ['*'],
      more: { gateways: ['demo/gw', 'mesh'] },
      errors: ['spec.hosts[0]: wildcard host * is not allowed for virtual services bound to the mesh gateway'],
    },
    {
      name: 'a wildcard inside the name',
      hosts: ['api.*.example.com'],
      errors: ['spec.hosts[0]: domain name "api.*.example.com" invalid (label "*" invalid)'],
    },
    {
      name: 'an all-numeric top-level domain that is not an IP',
      hosts: ['10.0.0.300'],
      errors: ['spec.hosts[0]: domain name "10.0.0.300" invalid (top level domain "300" cannot be all-numeric)'],
    },
    {
      name: 'overlapping hosts',
      hosts: ['*.example.com', 'api.example.com', 'reviews'],
      errors: ['spec.hosts[1]: duplicate hosts in virtual service: *.example.com & api.example.com'],
    },
    {
      name: 'the same host twice',
      hosts: ['reviews', 'reviews'],
      errors: ['spec.hosts[1]: duplicate hosts in virtual service: reviews & reviews'],
    },
  ];
  for (const c of cases) {
    it(`given ${c.name} should ${c.errors ? "refuse it with Istio's message" : 'accept it'}`, () => {
      assert.deepEqual(virtualService(c.hosts, c.more), c.errors ?? []);
    });
  }

  it('given a gateway-bound TLS VirtualService should accept an AUTO_PASSTHROUGH outbound_.<PORT>_._.<HOSTNAME> SNI host, and refuse a malformed one', () => {
    const tls = (host: string): Record<string, unknown> => ({ gateways: ['demo/gw'], http: undefined, tls: [{ match: [{ sniHosts: [host] }], route: [{ destination: { host: 'reviews' } }] }] });
    assert.deepEqual(virtualService(['outbound_.9080_._.reviews.demo.svc.cluster.local'], tls('outbound_.9080_._.reviews.demo.svc.cluster.local')), []);
    assert.deepEqual(virtualService(['outbound_.x_._.reviews.demo.svc.cluster.local'], tls('outbound_.x_._.reviews.demo.svc.cluster.local')).filter((e) => e.startsWith('spec.hosts')), [
      'spec.hosts[0]: domain name "outbound_.x_._.reviews.demo.svc.cluster.local" invalid (label "x" invalid). should follow outbound_.<PORT>_._.<HOSTNAME> format',
    ]);
  });

  it('given SNI hosts should refuse one no VirtualService host covers (Istio validateSniHost), and only warn for an IP', () => {
    const tls = (sni: string[]): Record<string, unknown> => ({ http: undefined, tls: [{ match: [{ sniHosts: sni }], route: [{ destination: { host: 'reviews' } }] }] });
    assert.deepEqual(virtualService(['*.example.com'], tls(['api.example.com', '*.api.example.com'])), []);
    assert.deepEqual(virtualService(['api.example.com'], tls(['*.example.com', 'api.example.org'])), [
      'spec.tls[0].match[0].sniHosts[0]: SNI host "*.example.com" is not a compatible subset of any of the virtual service hosts: [api.example.com]',
      'spec.tls[0].match[0].sniHosts[1]: SNI host "api.example.org" is not a compatible subset of any of the virtual service hosts: [api.example.com]',
    ]);
    const r = validateConfig({ apiVersion: 'networking.mesh.io/v1', kind: 'VirtualService', metadata: { name: 'vs', namespace: 'demo' }, spec: { hosts: ['10.0.0.1'], ...tls(['10.0.0.1']) } });
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(r.warnings.map((w) => w.message), ['using an IP address ("10.0.0.1") goes against SNI spec and most clients do not support this']);
  });
});
