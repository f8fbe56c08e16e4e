import assert from 'node:assert/strict';
import { isCredentialKey, redactCredentials, REDACTED } from './redact.js';

const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2EifQ.c2lnbmF0dXJl';

describe('redactCredentials', () => {
  const keys: { key: string; credential: boolean }[] = [
    { key: 'TEST_TOKEN', credential: true },
    { key: 'DB_PASSWORD', credential: true },
    { key: 'AWS_SECRET_ACCESS_KEY', credential: true },
    { key: 'apiKey', credential: true },
    { key: 'api-key', credential: true },
    { key: 'Authorization', credential: true },
    { key: 'GITHUB_AUTH', credential: true },
    { key: 'CREDENTIAL_IDENTITY_PROVIDER', credential: true },
    { key: 'privateKeyProvider', credential: true },
    { key: 'GENERATOR', credential: false },
    { key: 'LABELS', credential: false },
    { key: 'CLUSTER_ID', credential: false },
    { key: 'MESH_VERSION', credential: false },
    { key: 'INTERCEPTION_MODE', credential: false },
    { key: 'monkey', credential: false },
    { key: 'keepalive', credential: false },
  ];
  for (const c of keys) {
    it(`given the key ${c.key} should ${c.credential ? '' : 'not '}treat it as a credential`, () => assert.equal(isCredentialKey(c.key), c.credential));
  }

  it('given node metadata with credentials at any depth should redact their values and keep the rest', () => {
    const metadata = {
      GENERATOR: 'grpc',
      LABELS: { app: 'reviews', version: 'v1' },
      TEST_TOKEN: 'tok-123',
      EMPTY_TOKEN: '',
      PROXY_CONFIG: { proxyMetadata: { DB_PASSWORD: 'hunter2', REGION: 'eu' }, tracing: { headers: ['Bearer abcdefghijklmnop'] } },
      NOTE: `fetched with ${JWT}`,
      TLS: '-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----',
      COUNT: 3,
    };
    assert.deepEqual(redactCredentials(metadata), {
      GENERATOR: 'grpc',
      LABELS: { app: 'reviews', version: 'v1' },
      TEST_TOKEN: REDACTED,
      EMPTY_TOKEN: '',
      PROXY_CONFIG: { proxyMetadata: { DB_PASSWORD: REDACTED, REGION: 'eu' }, tracing: { headers: [REDACTED] } },
      NOTE: REDACTED,
      TLS: REDACTED,
      COUNT: 3,
    });
    assert.equal(metadata.TEST_TOKEN, 'tok-123', 'the input is not changed');
  });

  it('given metadata nested deeper than 16 levels should truncate it', () => {
    let deep: unknown = { TOKEN: 'x' };
    for (let i = 0; i < 20; i++) deep = { d: deep };
    assert.match(JSON.stringify(redactCredentials(deep)), /"\[truncated\]"/);
  });
});
