import assert from 'node:assert/strict';
import { isKnownConditionKey } from './authorization-policy.js';
import { checkNamespacedHost } from './gateway.js';
import { isKnownProtocol } from './service-entry.js';

describe('crds semantic helpers', () => {
  const hosts: { host: string; requireNs: boolean; tilde: boolean; ok: boolean }[] = [
    { host: 'prod/*.example.com', requireNs: true, tilde: false, ok: true },
    { host: './*', requireNs: true, tilde: false, ok: true },
    { host: '*/foo.com', requireNs: true, tilde: false, ok: true },
    { host: '~/*', requireNs: true, tilde: true, ok: true },
    { host: '~/*', requireNs: true, tilde: false, ok: false },
    { host: 'foo.com', requireNs: true, tilde: false, ok: false },
    { host: 'foo.com', requireNs: false, tilde: false, ok: true },
    { host: 'a/b/c', requireNs: false, tilde: false, ok: false },
    { host: 'Prod/foo.com', requireNs: true, tilde: false, ok: false },
  ];
  for (const c of hosts) {
    it(`given host "${c.host}" (namespace ${c.requireNs ? 'required' : 'optional'}) should ${c.ok ? 'accept' : 'reject'} it`, () => {
      assert.equal(checkNamespacedHost(c.host, c.requireNs, c.tilde) === undefined, c.ok);
    });
  }

  const keys: { key: string; ok: boolean }[] = [
    { key: 'request.headers[x-token]', ok: true },
    { key: 'request.auth.claims[groups]', ok: true },
    { key: 'request.auth.claims[nested][key]', ok: true },
    { key: 'source.ip', ok: true },
    { key: 'experimental.envoy.filters.http.foo', ok: true },
    { key: 'request.headers', ok: false },
    { key: 'request.body', ok: false },
  ];
  for (const c of keys) {
    it(`given condition key ${c.key} should ${c.ok ? 'accept' : 'reject'} it`, () => {
      assert.equal(isKnownConditionKey(c.key), c.ok);
    });
  }

  const protocols: { protocol: string | undefined; ok: boolean }[] = [
    { protocol: undefined, ok: true },
    { protocol: 'http', ok: true },
    { protocol: 'GRPC-Web', ok: true },
    { protocol: 'QUIC', ok: false },
  ];
  for (const c of protocols) {
    it(`given protocol ${String(c.protocol)} should ${c.ok ? 'accept' : 'reject'} it`, () => {
      assert.equal(isKnownProtocol(c.protocol), c.ok);
    });
  }
});
