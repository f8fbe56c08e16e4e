import assert from 'node:assert/strict';
import { validateConfig } from '../validate-config.js';

/** The errors of a Sidecar with one ingress listener (`port` and `tls` as given), as `path: message` lines. */
function errorsOf(port: Record<string, unknown>, tls: Record<string, unknown>): string[] {
  const r = validateConfig({
    apiVersion: 'networking.mesh.io/v1',
    kind: 'Sidecar',
    metadata: { name: 'ingress-tls', namespace: 'demo' },
    spec: { workloadSelector: { labels: { app: 'a' } }, ingress: [{ port, defaultEndpoint: '127.0.0.1:8080', tls }] },
  });
  return r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`);
}

const HTTPS = { number: 8443, protocol: 'HTTPS', name: 'https' };
const FILES = { mode: 'SIMPLE', serverCertificate: '/etc/certs/tls.crt', privateKey: '/etc/certs/tls.key' };
const AT = 'spec.ingress[0].tls';

describe("Sidecar ingress tls: what Istio's validation refuses", () => {
  const bad: { name: string; port?: Record<string, unknown>; tls: Record<string, unknown>; want: string }[] = [
    { name: 'subjectAltNames', tls: { ...FILES, subjectAltNames: ['a.example'] }, want: `${AT}.subjectAltNames: sidecar: subjectAltNames is not supported in ingress tls` },
    { name: 'httpsRedirect', tls: { ...FILES, httpsRedirect: true }, want: `${AT}.httpsRedirect: sidecar: httpsRedirect is not supported` },
    { name: 'credentialName', tls: { mode: 'SIMPLE', credentialName: 'cert' }, want: `${AT}.credentialName: sidecar: credentialName is not currently supported` },
    { name: 'credentialNames', tls: { mode: 'SIMPLE', credentialNames: ['cert'] }, want: `${AT}.credentialNames: sidecar: credentialNames is not currently supported` },
    { name: 'tlsCertificates', tls: { mode: 'SIMPLE', tlsCertificates: [{ serverCertificate: '/c', privateKey: '/k' }] }, want: `${AT}.tlsCertificates: sidecar: tls_certificates is not currently supported` },
    { name: 'mode MESH_MUTUAL', tls: { ...FILES, mode: 'MESH_MUTUAL' }, want: `${AT}.mode: configuration is invalid: cannot set mode to MESH_MUTUAL in sidecar ingress tls` },
    { name: 'mode AUTO_PASSTHROUGH', port: { number: 8443, protocol: 'TLS', name: 'tls' }, tls: { ...FILES, mode: 'AUTO_PASSTHROUGH' }, want: `${AT}.mode: configuration is invalid: cannot set mode to AUTO_PASSTHROUGH in sidecar ingress tls` },
    { name: 'an HTTP port', port: { number: 8080, protocol: 'HTTP', name: 'http' }, tls: FILES, want: `${AT}: server cannot have TLS settings for non HTTPS/TLS ports` },
    { name: 'versions out of order', tls: { ...FILES, minProtocolVersion: 'TLSV1_3', maxProtocolVersion: 'TLSV1_2' }, want: `${AT}: minProtocolVersion is above maxProtocolVersion` },
  ];
  for (const c of bad) {
    it(`given ${c.name} should refuse it naming the field`, () => {
      const errors = errorsOf(c.port ?? HTTPS, c.tls);
      assert.ok(errors.includes(c.want), `want "${c.want}", got:\n  ${errors.join('\n  ') || '(accepted)'}`);
    });
  }

  it('given SIMPLE and MUTUAL with files on HTTPS and TLS ports should accept them', () => {
    assert.deepEqual(errorsOf(HTTPS, FILES), []);
    assert.deepEqual(errorsOf({ number: 9443, protocol: 'TLS', name: 'tls' }, { ...FILES, mode: 'MUTUAL', caCertificates: '/etc/certs/ca.crt', minProtocolVersion: 'TLSV1_2' }), []);
  });
});

describe('Sidecar fields meshd builds (no not-implemented warning)', () => {
  const warningsOf = (spec: Record<string, unknown>): string[] => {
    const r = validateConfig({ apiVersion: 'networking.mesh.io/v1', kind: 'Sidecar', metadata: { name: 'unbuilt', namespace: 'demo' }, spec });
    assert.ok(r.ok, 'accepted, as Istio accepts them');
    return r.warnings.map((w) => `${w.path}: ${w.message}`);
  };
  it('given ingress bind, captureMode NONE and connectionPool, egress bind and captureMode NONE and inboundConnectionPool should accept them without warning (built)', () => {
    const got = warningsOf({
      inboundConnectionPool: { tcp: { maxConnections: 10 } },
      ingress: [{ port: { number: 9080, protocol: 'HTTP', name: 'http' }, defaultEndpoint: '127.0.0.1:8080', bind: '0.0.0.0', captureMode: 'NONE', connectionPool: { tcp: { maxConnections: 5 } } }],
      egress: [{ port: { number: 9080, protocol: 'HTTP', name: 'http' }, hosts: ['./*'], bind: '127.0.0.2', captureMode: 'NONE' }],
    });
    assert.deepEqual(got, []);
  });
  it('given an egress listener on a unix domain socket (port 0) should accept it without warning (built, as istiod)', () => {
    assert.deepEqual(warningsOf({ egress: [{ port: { number: 0, protocol: 'HTTP', name: 'uds' }, hosts: ['./*'], bind: 'unix:///var/run/egress.sock', captureMode: 'NONE' }] }), []);
  });
  it('given none of them should warn about nothing', () => {
    assert.deepEqual(warningsOf({ ingress: [{ port: { number: 9080, protocol: 'HTTP', name: 'http' }, defaultEndpoint: '127.0.0.1:8080', captureMode: 'DEFAULT' }], egress: [{ hosts: ['./*'] }] }), []);
  });
  it('given an ingress bind that is not an IP should refuse it as Istio, naming the field', () => {
    const r = validateConfig({
      apiVersion: 'networking.mesh.io/v1',
      kind: 'Sidecar',
      metadata: { name: 'bad-bind', namespace: 'demo' },
      spec: { ingress: [{ port: { number: 9080, protocol: 'HTTP', name: 'http' }, bind: 'unix:///var/run/app.sock', captureMode: 'NONE' }] },
    });
    assert.equal(r.ok, false);
    assert.deepEqual(r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`), ['spec.ingress[0].bind: unix:///var/run/app.sock is not a valid IP']);
  });
  const egressErrors: { name: string; egress: Record<string, unknown>[]; want: string[] }[] = [
    { name: 'an egress bind that is not an IP on a port', egress: [{ port: { number: 9080, protocol: 'HTTP', name: 'http' }, hosts: ['./*'], bind: 'localhost' }], want: ['spec.egress[0].bind: localhost is not a valid IP'] },
    { name: 'port 0 without a unix socket bind', egress: [{ port: { number: 0, protocol: 'HTTP', name: 'uds' }, hosts: ['./*'], bind: '127.0.0.1' }], want: ['spec.egress[0].bind: sidecar: ports with 0 value must have a unix domain socket bind address'] },
    { name: 'a unix socket with captureMode IPTABLES', egress: [{ port: { number: 0, protocol: 'HTTP', name: 'uds' }, hosts: ['./*'], bind: 'unix:///a.sock', captureMode: 'IPTABLES' }], want: ['spec.egress[0].captureMode: sidecar: captureMode must be DEFAULT/NONE for unix domain socket listeners'] },
    {
      name: 'two listeners on one unix socket',
      egress: [
        { port: { number: 0, protocol: 'HTTP', name: 'a' }, hosts: ['./*'], bind: 'unix:///a.sock' },
        { port: { number: 0, protocol: 'TCP', name: 'b' }, hosts: ['./*'], bind: 'unix:///a.sock' },
      ],
      want: ['spec.egress[1].bind: sidecar: unix domain socket values for listeners must be unique'],
    },
  ];
  for (const c of egressErrors) {
    it(`given ${c.name} should refuse it as Istio, naming the field`, () => {
      const r = validateConfig({ apiVersion: 'networking.mesh.io/v1', kind: 'Sidecar', metadata: { name: 'egress', namespace: 'demo' }, spec: { egress: c.egress } });
      assert.deepEqual(r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`), c.want);
    });
  }
});
