import { strict as assert } from 'node:assert';
import { EnvError, loadEnv, parseEnvValue, type EnvValue } from './load-env.js';
import type { EnvType } from './env-var-declaration.js';

describe('parseEnvValue', () => {
  const cases: { name: string; type: EnvType; text: string; want: EnvValue | undefined }[] = [
    ...['1', 't', 'T', 'TRUE', 'true', 'True'].map((text) => ({ name: `Bool ${text}`, type: 'Bool' as const, text, want: true })),
    ...['0', 'f', 'F', 'FALSE', 'false', 'False'].map((text) => ({ name: `Bool ${text}`, type: 'Bool' as const, text, want: false })),
    ...['flase', 'yes', 'tRUE', ' true', '2'].map((text) => ({ name: `Bool ${text}`, type: 'Bool' as const, text, want: undefined })),
    { name: 'Integer 2048', type: 'Integer', text: '2048', want: 2048 },
    { name: 'Integer -3', type: 'Integer', text: '-3', want: -3 },
    { name: 'Integer 1.5', type: 'Integer', text: '1.5', want: undefined },
    { name: 'Integer 12ab', type: 'Integer', text: '12ab', want: undefined },
    { name: 'Integer beyond 2^53', type: 'Integer', text: '99999999999999999999', want: undefined },
    { name: 'Float 0.5', type: 'Float', text: '0.5', want: 0.5 },
    { name: 'Float 1e2', type: 'Float', text: '1e2', want: 100 },
    { name: 'Float .25', type: 'Float', text: '.25', want: 0.25 },
    { name: 'Float abc', type: 'Float', text: 'abc', want: undefined },
    { name: 'Duration 1m30s', type: 'Duration', text: '1m30s', want: 90_000 },
    { name: 'Duration 100ms', type: 'Duration', text: '100ms', want: 100 },
    { name: 'Duration 10', type: 'Duration', text: '10', want: undefined },
    { name: 'String any', type: 'String', text: 'a b', want: 'a b' },
  ];
  for (const c of cases) {
    it(`given ${c.name} should give ${String(c.want)}`, () => assert.equal(parseEnvValue(c.type, c.text), c.want));
  }
});

describe('loadEnv', () => {
  it('given an empty environment should give the spec defaults', () => {
    const env = loadEnv('pilot-discovery', { HOME: '/home/u' });
    assert.equal(env.bool('ENABLE_CA_SERVER'), true);
    assert.equal(env.bool('ENABLE_ENHANCED_RESOURCE_SCOPING'), false);
    assert.equal(env.string('CLUSTER_ID'), 'Orchestrator');
    assert.equal(env.string('AUDIENCE'), undefined);
    assert.equal(env.int('CERTAUTH_SELF_SIGNED_CA_RSA_KEY_SIZE'), 2048);
    assert.equal(env.duration('CERTAUTH_SELF_SIGNED_CA_CERT_TTL'), 87600 * 3_600_000);
    assert.equal(env.string('POD_NAMESPACE'), 'mesh-system');
    assert.equal(env.isSet('CLUSTER_ID'), false);
  });

  it('given values should parse them by type', () => {
    const env = loadEnv('pilot-agent', {
      ENABLE_CA_SERVER: 'F',
      SECRET_GRACE_PERIOD_RATIO: '0.25',
      WASM_HTTP_REQUEST_MAX_RETRIES: '7',
      SECRET_TTL: '1h',
      POD_NAMESPACE: 'apps',
    });
    assert.equal(env.bool('ENABLE_CA_SERVER'), false);
    assert.equal(env.float('SECRET_GRACE_PERIOD_RATIO'), 0.25);
    assert.equal(env.int('WASM_HTTP_REQUEST_MAX_RETRIES'), 7);
    assert.equal(env.duration('SECRET_TTL'), 3_600_000);
    assert.equal(env.string('POD_NAMESPACE'), 'apps');
    assert.equal(env.isSet('POD_NAMESPACE'), true);
  });

  it('given the agent should have no POD_NAMESPACE default (its document gives none)', () => {
    assert.equal(loadEnv('pilot-agent', {}).string('POD_NAMESPACE'), undefined);
  });

  it('given an empty non-String value should use the default', () => {
    assert.equal(loadEnv('operator', { ENABLE_CA_SERVER: '' }).bool('ENABLE_CA_SERVER'), true);
  });

  it('given meshctl should expand $HOME in the MESHCONFIG default', () => {
    assert.equal(loadEnv('meshctl', { HOME: '/home/u' }).string('MESHCONFIG'), '/home/u/.meshctl/config.yaml');
  });

  const bad: { name: string; source: Record<string, string>; message: RegExp }[] = [
    { name: 'a bad Bool', source: { ENABLE_CA_SERVER: 'flase' }, message: /^ENABLE_CA_SERVER="flase": not a Bool \(use true or false\)$/ },
    { name: 'a bad Integer', source: { PILOT_PUSH_THROTTLE: '1.5' }, message: /^PILOT_PUSH_THROTTLE="1.5": not an Integer \(use a whole number/ },
    { name: 'a bad Float', source: { PILOT_TRACE_SAMPLING: 'lots' }, message: /^PILOT_TRACE_SAMPLING="lots": not a Float \(use a decimal/ },
    { name: 'a bad Duration', source: { PILOT_DEBOUNCE_AFTER: '100' }, message: /^PILOT_DEBOUNCE_AFTER="100": not a Duration \(use a number with a unit/ },
  ];
  for (const c of bad) {
    it(`given ${c.name} should throw EnvError naming variable, value and form`, () => {
      assert.throws(() => loadEnv('pilot-discovery', c.source), (err: unknown) => err instanceof EnvError && c.message.test(err.message));
    });
  }

  it('given two bad values should name both', () => {
    assert.throws(
      () => loadEnv('pilot-discovery', { ENABLE_CA_SERVER: 'x', PILOT_DEBOUNCE_AFTER: 'y' }),
      (err: unknown) => err instanceof EnvError && err.problems.length === 2,
    );
  });

  it('given a bad value of a variable the program does not read should ignore it', () => {
    assert.equal(loadEnv('pilot-discovery', { MESHCTL_INSECURE: 'maybe' }).program, 'pilot-discovery');
  });

  it('given a read of a variable the program does not read should throw', () => {
    const env = loadEnv('pilot-discovery', {});
    assert.throws(() => env.bool('MESHCTL_INSECURE'), /MESHCTL_INSECURE: not read by pilot-discovery/);
  });

  it('given a typed getter should reject names of another kind at compile time', () => {
    const env = loadEnv('pilot-discovery', {});
    // @ts-expect-error CLUSTER_ID is a String, not a Bool
    assert.throws(() => env.bool('CLUSTER_ID'), /is a String, not a Bool/);
    // @ts-expect-error not a declared variable
    assert.throws(() => env.string('NO_SUCH_VARIABLE'), /not a declared environment variable/);
  });
});
