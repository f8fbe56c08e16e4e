import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { RequestOptions } from 'node:https';
import { join } from 'node:path';
import { KubeconfigError, OrchKubeConfig } from './kubeconfig.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function kubeconfig(user: string, cluster = 'server: https://api.example:6443'): string {
  return `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    ${cluster}
users:
- name: u
  user:
${user.replace(/^/gm, '    ')}
contexts:
- name: x
  context: {cluster: c, user: u, namespace: team}
current-context: x
`;
}

describe('OrchKubeConfig', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'kubeconfig-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('given a file with relative certificate paths, should read them from the file\'s folder', async () => {
    writeFileSync(join(dir, 'ca.crt'), 'CA');
    writeFileSync(join(dir, 'u.crt'), 'CERT');
    writeFileSync(join(dir, 'u.key'), 'KEY');
    writeFileSync(join(dir, 'config'), kubeconfig('client-certificate: u.crt\nclient-key: u.key', 'server: https://api.example:6443/\n    certificate-authority: ca.crt\n    tls-server-name: kubernetes'));
    const kc = OrchKubeConfig.fromFile(join(dir, 'config'));
    assert.equal(kc.getCurrentCluster()?.server, 'https://api.example:6443');
    assert.equal(kc.getContextObject(kc.getCurrentContext())?.namespace, 'team');
    const opts: RequestOptions & { headers?: Record<string, string> } = {};
    await kc.applyToHTTPSOptions(opts);
    assert.deepEqual([String(opts.ca), String(opts.cert), String(opts.key), opts.servername], ['CA', 'CERT', 'KEY', 'kubernetes']);
    assert.equal(opts.headers?.['Authorization'], undefined);
  });

  const auth: Array<[string, string, (o: RequestOptions & { headers?: Record<string, string> }) => void]> = [
    ['a token', 'token: abc', (o) => assert.equal(o.headers?.['Authorization'], 'Bearer abc')],
    ['client certificate data', `client-certificate-data: ${b64('C')}\nclient-key-data: ${b64('K')}`, (o) => assert.equal(String(o.cert), 'C')],
    ['a user name and password', 'username: admin\npassword: pw', (o) => assert.equal(o.auth, 'admin:pw')],
    ['impersonation', 'token: t\nas: jane', (o) => assert.equal(o.headers?.['Impersonate-User'], 'jane')],
  ];
  for (const [what, user, check] of auth) {
    it(`given ${what}, should apply it to a request`, async () => {
      const opts: RequestOptions & { headers?: Record<string, string> } = {};
      await OrchKubeConfig.fromYaml(kubeconfig(user), 'test').applyToHTTPSOptions(opts);
      check(opts);
    });
  }

  it('given insecure-skip-tls-verify, should not verify the server', async () => {
    const opts: { rejectUnauthorized?: boolean } = {};
    await OrchKubeConfig.fromYaml(kubeconfig('token: t', 'server: https://a:1\n    insecure-skip-tls-verify: true'), 'test').applyToHTTPSOptions(opts);
    assert.equal(opts.rejectUnauthorized, false);
  });

  it('given in-cluster files, should send the service account token', async () => {
    writeFileSync(join(dir, 'token'), 'sa-token\n');
    const kc = OrchKubeConfig.inCluster('https://10.0.0.1:443', join(dir, 'ca.crt'), join(dir, 'token'));
    const opts: { headers?: Record<string, string> } = {};
    await kc.applyToHTTPSOptions(opts);
    assert.equal(opts.headers?.['Authorization'], 'Bearer sa-token');
  });

  it('given an exec plugin, should run it once while its credential is valid and again when it expired', async () => {
    const count = join(dir, 'count');
    writeFileSync(count, '');
    const plugin = join(dir, 'plugin.mjs');
    writeFileSync(
      plugin,
      `#!${process.execPath}\nimport { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(count)}, 'x');\n` +
        `const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO);\n` +
        `console.log(JSON.stringify({ apiVersion: info.apiVersion, kind: 'ExecCredential', status: { token: 'exec-' + process.env.WHO, expirationTimestamp: process.env.EXPIRES } }));\n`,
    );
    chmodSync(plugin, 0o755);
    const exec = (expires: string): string => `exec:\n  apiVersion: client.authentication.k8s.io/v1\n  command: ${plugin}\n  env: [{name: WHO, value: me}, {name: EXPIRES, value: "${expires}"}]`;
    const later = OrchKubeConfig.fromYaml(kubeconfig(exec(new Date(Date.now() + 3600_000).toISOString())), 'test');
    for (let i = 0; i < 2; i++) {
      const opts: { headers?: Record<string, string> } = {};
      await later.applyToHTTPSOptions(opts);
      assert.equal(opts.headers?.['Authorization'], 'Bearer exec-me');
    }
    assert.equal(readFileSync(count, 'utf8'), 'x', 'a valid credential is reused');
    const expired = OrchKubeConfig.fromYaml(kubeconfig(exec(new Date(Date.now() - 1000).toISOString())), 'test');
    await expired.applyToHTTPSOptions({});
    await expired.applyToHTTPSOptions({});
    assert.equal(readFileSync(count, 'utf8'), 'xxx', 'an expired credential is fetched again');
  });

  it('given an exec plugin that fails, should name the user and the command', async () => {
    const kc = OrchKubeConfig.fromYaml(kubeconfig(`exec:\n  command: ${join(dir, 'missing-plugin')}`), 'test');
    await assert.rejects(kc.applyToHTTPSOptions({}), (e: unknown) => e instanceof KubeconfigError && /users\[u\]\.exec .*missing-plugin/.test(e.message));
  });

  const bad: Array<[string, string, RegExp]> = [
    ['a cluster without a server', kubeconfig('token: t', 'certificate-authority-data: eA=='), /test: clusters\[0\]\.cluster\.server is missing/],
    ['an auth provider', kubeconfig('auth-provider: {name: gcp}'), /users\[0\]\.user\.auth-provider "gcp" is not supported: use an exec credential plugin/],
    ['a proxy URL', kubeconfig('token: t', 'server: https://a:1\n    proxy-url: http://proxy:3128'), /clusters\[0\]\.cluster\.proxy-url: not implemented yet/],
    ['clusters that are not a list', 'clusters: {a: 1}\n', /test: clusters is not a list/],
    ['a context without a cluster', 'contexts: [{name: x, context: {user: u}}]\n', /contexts\[0\]\.context\.cluster is missing/],
    ['broken YAML', 'clusters: [\n', /test: not YAML/],
  ];
  for (const [what, text, message] of bad) {
    it(`given ${what}, should refuse it saying where`, () => {
      assert.throws(() => OrchKubeConfig.fromYaml(text, 'test'), (e: unknown) => e instanceof KubeconfigError && message.test(e.message));
    });
  }
});
