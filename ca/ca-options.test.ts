import assert from 'node:assert/strict';
import { loadEnv } from '../core/index.js';
import { CaOptionsError, caServicesToRegister, caSettingsFromEnv } from './ca-options.js';

const HOUR = 3600_000;
const settings = (vars: Readonly<Record<string, string | undefined>>): ReturnType<typeof caSettingsFromEnv> => caSettingsFromEnv(loadEnv('pilot-discovery', vars), 'cluster.local');

describe('caSettingsFromEnv', () => {
  it('given no variables should apply the spec defaults', () => {
    const s = settings({});
    assert.deepEqual(s.ca.selfSigned, { rootTtlMs: 87600 * HOUR, rsaKeySize: 2048, checkIntervalMs: HOUR, enableJitter: true, gracePeriodPercentile: 20, useCacertsSecret: false });
    assert.deepEqual(s.ca.workload, { defaultTtlMs: 24 * HOUR, maxTtlMs: 2160 * HOUR });
    assert.equal(s.ca.rootCaDir, './etc/cacerts');
    assert.deepEqual(s.server, { enabled: true, tokenAudiences: ['mesh-ca'], require3pToken: false, jwtPolicy: 'third-party-jwt', trustedNodeAccounts: [], oidc: undefined });
  });

  it('given values should read them', () => {
    const s = settings({
      TOKEN_AUDIENCES: 'a, b', REQUIRE_3P_TOKEN: 'true', JWT_POLICY: 'first-party-jwt', CA_TRUSTED_NODE_ACCOUNTS: 'mesh-system/ztunnel,kube-system/node',
      MAX_WORKLOAD_CERT_TTL: '48h', DEFAULT_WORKLOAD_CERT_TTL: '1h', ROOT_CA_DIR: '/etc/cacerts', USE_CACERTS_FOR_SELF_SIGNED_CA: 'true',
    });
    assert.deepEqual(s.server.tokenAudiences, ['a', 'b']);
    assert.equal(s.server.jwtPolicy, 'first-party-jwt');
    assert.deepEqual(s.server.trustedNodeAccounts, [{ namespace: 'mesh-system', serviceAccount: 'ztunnel' }, { namespace: 'kube-system', serviceAccount: 'node' }]);
    assert.deepEqual(s.ca.workload, { defaultTtlMs: HOUR, maxTtlMs: 48 * HOUR });
    assert.equal(s.ca.selfSigned.useCacertsSecret, true);
  });

  it('given TOKEN_ISSUER should read it with the JWKS resolver settings', () => {
    assert.deepEqual(settings({ TOKEN_ISSUER: 'https://issuer.example/ns' }).server.oidc, { issuer: 'https://issuer.example/ns', jwksRefreshIntervalMs: 20 * 60_000, jwksInsecureSkipVerify: false });
    assert.deepEqual(
      settings({ TOKEN_ISSUER: 'https://issuer.example', PILOT_JWT_PUB_KEY_REFRESH_INTERVAL: '1m', JWKS_RESOLVER_INSECURE_SKIP_VERIFY: 'true' }).server.oidc,
      { issuer: 'https://issuer.example', jwksRefreshIntervalMs: 60_000, jwksInsecureSkipVerify: true },
    );
  });

  const bad = [
    { name: 'given a TOKEN_ISSUER that is not a URL should name it', vars: { TOKEN_ISSUER: 'issuer.example' }, message: /TOKEN_ISSUER="issuer.example": not a URL/ },
    { name: 'given a TOKEN_ISSUER with another scheme should name it', vars: { TOKEN_ISSUER: 'ftp://issuer' }, message: /TOKEN_ISSUER="ftp:\/\/issuer": scheme must be https/ },
    { name: 'given an unknown JWT_POLICY should name it', vars: { JWT_POLICY: 'none' }, message: /JWT_POLICY="none": unknown policy/ },
    { name: 'given a malformed CA_TRUSTED_NODE_ACCOUNTS entry should name it', vars: { CA_TRUSTED_NODE_ACCOUNTS: 'ztunnel' }, message: /CA_TRUSTED_NODE_ACCOUNTS: "ztunnel" is not <namespace>\/<serviceaccount>/ },
    { name: 'given a grace percentile of 0 should name the variable', vars: { CERTAUTH_SELF_SIGNED_ROOT_CERT_GRACE_PERIOD_PERCENTILE: '0' }, message: /GRACE_PERIOD_PERCENTILE=0/ },
    { name: 'given empty TOKEN_AUDIENCES should name it', vars: { TOKEN_AUDIENCES: ' , ' }, message: /TOKEN_AUDIENCES/ },
  ];
  for (const c of bad) {
    it(c.name, () => assert.throws(() => settings(c.vars), (err: unknown) => err instanceof CaOptionsError && c.message.test(err.message)));
  }

  const registerCases = [
    { name: 'given ENABLE_CA_SERVER=false should register nothing', vars: { ENABLE_CA_SERVER: 'false' }, want: [] },
    { name: 'given the default should register the certificate service', vars: {}, want: ['mesh.v1.auth.MeshCertificateService'] },
  ];
  for (const c of registerCases) it(`caServicesToRegister: ${c.name}`, () => assert.deepEqual(caServicesToRegister(settings(c.vars).server), c.want));
});
