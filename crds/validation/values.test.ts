import assert from 'node:assert/strict';
import { checkDuration, checkIpOrCidr, checkRe2Regex, checkWildcardHost, parseGoDurationMs } from './values.js';

describe('crds validation values', () => {
  const durations: { text: string; ms: number | undefined }[] = [
    { text: '1s', ms: 1000 },
    { text: '0.5s', ms: 500 },
    { text: '100ms', ms: 100 },
    { text: '1h30m', ms: 5_400_000 },
    { text: '1x', ms: undefined },
    { text: '', ms: undefined },
    { text: '10', ms: undefined },
    { text: '-1s', ms: undefined },
  ];
  for (const c of durations) {
    it(`given duration "${c.text}" should parse to ${String(c.ms)}`, () => {
      assert.equal(parseGoDurationMs(c.text), c.ms);
    });
  }

  it('given a duration under 1ms should reject it', () => {
    assert.match(checkDuration('999us') ?? '', /must be a valid duration greater than 1ms/);
    assert.equal(checkDuration('1ms'), undefined);
  });

  const regexes: { re: string; ok: boolean }[] = [
    { re: '^/api/v[0-9]+/.*$', ok: true },
    { re: '(?P<id>[0-9]+)', ok: true },
    { re: 'a(?=b)', ok: false },
    { re: '(?<!a)b', ok: false },
    { re: '(x)\\1', ok: false },
    { re: '[unclosed', ok: false },
  ];
  for (const c of regexes) {
    it(`given regex ${c.re} should ${c.ok ? 'accept' : 'reject'} it`, () => {
      assert.equal(checkRe2Regex(c.re) === undefined, c.ok);
    });
  }

  const hosts: { host: string; ok: boolean }[] = [
    { host: 'reviews', ok: true },
    { host: 'reviews.default.svc.cluster.local', ok: true },
    { host: '*.example.com', ok: true },
    { host: '*', ok: true },
    { host: 'a.*.com', ok: false },
    { host: 'bad host', ok: false },
    { host: '', ok: false },
  ];
  for (const c of hosts) {
    it(`given host "${c.host}" should ${c.ok ? 'accept' : 'reject'} it`, () => {
      assert.equal(checkWildcardHost(c.host) === undefined, c.ok);
    });
  }

  const ips: { ip: string; ok: boolean }[] = [
    { ip: '10.0.0.0/8', ok: true },
    { ip: '::1', ok: true },
    { ip: '2001:db8::/32', ok: true },
    { ip: '10.0.0.0/33', ok: false },
    { ip: 'example.com', ok: false },
  ];
  for (const c of ips) {
    it(`given address ${c.ip} should ${c.ok ? 'accept' : 'reject'} it`, () => {
      assert.equal(checkIpOrCidr(c.ip) === undefined, c.ok);
    });
  }
});
