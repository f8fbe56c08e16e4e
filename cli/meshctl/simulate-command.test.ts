// `meshctl x simulate` and `meshctl x translate` through the real bin/meshctl process over
// examples/bookinfo-sidecar: outcomes (route, clusters with weights, endpoints, provenance), not proto text.
// MESH_UPDATE_GOLDEN=1 rewrites the golden short output (review the diff).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, runProgram } from '../testing/program-process.js';
import { parseRequest } from './simulate-run.js';
import { translate } from './translate-run.js';

const EX = join(REPO_ROOT, 'examples/bookinfo-sidecar');
const REVIEWS = 'reviews.default.svc.cluster.local';
const MESH = (mode: string): string[] => ['--meshConfigFile', join(EX, 'mesh-config', `${mode}.yaml`)];
const GOLDEN = join(REPO_ROOT, 'cli/meshctl/testdata/simulate');

interface Report {
  request: { address?: string };
  result: { outcome: string; listener?: string; route?: string; virtualHost?: string; clusters?: { name: string; weight: number; endpoints: string[] }[]; response?: Record<string, unknown>; sources: string[] };
  clusterSources: Record<string, string[]>;
}

async function simulate(args: string[]): Promise<Report> {
  const r = await runProgram('meshctl', ['x', 'simulate', '-f', EX, '-p', 'default/productpage-v1', '-o', 'json', ...args]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as Report;
}

const clusters = (r: Report): string[] => (r.result.clusters ?? []).map((c) => `${c.name}:${c.weight} -> ${c.endpoints.join(',')}`);

describe('meshctl x simulate (bin/meshctl over examples/bookinfo-sidecar)', function () {
  this.timeout(60_000);
  const cases: { name: string; args: string[]; want: { outcome: string; listener: string; route?: string; clusters?: string[]; sources?: string[]; status?: number } }[] = [
    {
      name: 'given the end-user header of the VirtualService match should go to subset v2 only',
      args: ['--request', "GET http://reviews:9080/reviews/1 -H 'end-user: jason'"],
      want: { outcome: 'routed', listener: '0.0.0.0_9080', route: 'jason', clusters: [`outbound|9080|v2|${REVIEWS}:100 -> 10.0.1.2:9080`], sources: ['VirtualService/default/reviews@3'] },
    },
    {
      name: 'given the header as a -H flag and the URL as an argument should match the same route',
      args: ['-H', 'End-User: jason', 'http://reviews.default:9080/'],
      want: { outcome: 'routed', listener: '0.0.0.0_9080', route: 'jason', clusters: [`outbound|9080|v2|${REVIEWS}:100 -> 10.0.1.2:9080`] },
    },
    {
      name: 'given another user should split 80/20 between the v1 and v3 subsets and their endpoints',
      args: ['--request', "http://reviews.default.svc.cluster.local:9080/ -H 'end-user: bob'"],
      want: { outcome: 'routed', listener: '0.0.0.0_9080', route: 'split', clusters: [`outbound|9080|v1|${REVIEWS}:80 -> 10.0.1.1:9080`, `outbound|9080|v3|${REVIEWS}:20 -> 10.0.1.3:9080`] },
    },
    {
      name: 'given a service without VirtualService should take its default route to every endpoint',
      args: ['http://ratings:9080/ratings/0'],
      want: { outcome: 'routed', listener: '0.0.0.0_9080', route: 'default', clusters: ['outbound|9080||ratings.default.svc.cluster.local:100 -> 10.0.2.1:9080'] },
    },
    {
      name: 'given a TCP service in another namespace should go through its VIP listener',
      args: ['tcp://mysqldb.data:3306'],
      want: { outcome: 'routed', listener: '10.96.0.30_3306', clusters: ['outbound|3306||mysqldb.data.svc.cluster.local:100 -> 10.0.3.1:3306'] },
    },
    {
      name: 'given an unknown host under ALLOW_ANY should pass through to the original destination',
      args: [...MESH('allow-any'), '--address', '93.184.216.34', 'http://example.com:8000/'],
      want: { outcome: 'routed', listener: 'virtualOutbound', clusters: ['PassthroughCluster:100 -> 93.184.216.34:8000'] },
    },
    {
      name: 'given an unknown host under REGISTRY_ONLY should be blackholed',
      args: [...MESH('registry-only'), '--address', '93.184.216.34', 'http://example.com:8000/'],
      want: { outcome: 'routed', listener: 'virtualOutbound', clusters: ['BlackHoleCluster:100 -> '] },
    },
    {
      name: 'given inbound mesh mTLS to the app port under STRICT should reach the inbound cluster',
      args: ['--inbound', 'http://productpage:9080/'],
      want: { outcome: 'routed', listener: 'virtualInbound', clusters: ['inbound|9080||:100 -> 10.0.0.1:9080'] },
    },
    {
      name: 'given inbound plaintext under STRICT should match no filter chain (refused)',
      args: ['--inbound', '--plaintext', 'http://productpage:9080/'],
      want: { outcome: 'no-filter-chain', listener: 'virtualInbound' },
    },
    {
      name: 'given an unknown host on a mesh HTTP port under REGISTRY_ONLY should get the block_all 502',
      args: [...MESH('registry-only'), '--address', '93.184.216.34', 'http://unknown.example.com:9080/'],
      want: { outcome: 'direct-response', listener: '0.0.0.0_9080', route: 'block_all', status: 502 },
    },
  ];
  // NOTE: each case is a bin/meshctl process (~1-2 s of module loading); run them two at a time up front.
  const results = new Map<string, Promise<Report>>();
  before(() => {
    const chain: Promise<unknown>[] = [Promise.resolve(), Promise.resolve()];
    cases.forEach((c, i) => {
      const p = chain[i % 2]!.then(() => simulate(c.args));
      p.catch(() => undefined); // NOTE: reported by the case's own `it`
      chain[i % 2] = p.catch(() => undefined);
      results.set(c.name, p);
    });
  });
  for (const c of cases) {
    it(c.name, async () => {
      const r = await results.get(c.name)!;
      assert.equal(r.result.outcome, c.want.outcome);
      assert.equal(r.result.listener, c.want.listener);
      if (c.want.route !== undefined) assert.equal(r.result.route, c.want.route);
      if (c.want.clusters) assert.deepEqual(clusters(r), c.want.clusters);
      for (const s of c.want.sources ?? []) assert.ok(r.result.sources.includes(s), `sources ${JSON.stringify(r.result.sources)} lack ${s}`);
      if (c.want.status !== undefined) assert.equal(r.result.response?.['status'], c.want.status);
    });
  }

  it('given a subset cluster should name the DestinationRule that shaped it', async () => {
    const r = await simulate(['http://reviews:9080/']);
    assert.deepEqual(r.clusterSources[`outbound|9080|v1|${REVIEWS}`]?.filter((s) => s.startsWith('DestinationRule/')), ['DestinationRule/default/reviews@2']);
  });

  it('given the short output should print the walk step by step (golden)', async () => {
    const r = await runProgram('meshctl', ['x', 'simulate', '-f', EX, '-p', 'default/productpage-v1', '--request', "GET http://reviews:9080/reviews/1 -H 'end-user: jason'"]);
    assert.equal(r.code, 0, r.stderr);
    const file = join(GOLDEN, 'jason.txt');
    if (process.env['MESH_UPDATE_GOLDEN'] === '1') writeFileSync(file, r.stdout);
    assert.equal(r.stdout, readFileSync(file, 'utf8'));
  });

  describe('bad input', () => {
    let dir: string;
    before(() => (dir = mkdtempSync(join(tmpdir(), 'mesh-simulate-'))));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('given a file meshd would refuse should fail naming the file, document, object and field', async () => {
      const bad = join(dir, 'bad.yaml');
      writeFileSync(bad, 'apiVersion: networking.mesh.io/v1\nkind: ServiceEntry\nmetadata: { name: bad, namespace: default }\nspec:\n  hosts: [bad.example.com]\n  ports: [{ number: 70000, name: http, protocol: HTTP }]\n');
      const r = await runProgram('meshctl', ['x', 'simulate', '-f', EX, '-f', bad, '-p', 'default/productpage-v1', 'http://reviews:9080/']);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, new RegExp(`${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: document 1 \\(ServiceEntry default/bad\\): spec\\.ports\\[0\\]\\.number`));
    });

    it('given Kubernetes Service, Pod and Endpoints files should route as the orchestrator registry sees them, from a Pod as the proxy', async () => {
      const k8s = join(REPO_ROOT, 'cli/meshctl/testdata/orch-inputs.yaml');
      const vs = join(dir, 'vs.yaml');
      writeFileSync(vs, 'apiVersion: networking.mesh.io/v1\nkind: VirtualService\nmetadata: { name: reviews, namespace: default }\nspec:\n  hosts: [reviews]\n  http: [{ route: [{ destination: { host: reviews }, weight: 100 }] }]\n');
      const run = async (url: string): Promise<Report> => {
        const r = await runProgram('meshctl', ['x', 'simulate', '-f', k8s, '-f', vs, '-p', 'default/productpage-1', '-o', 'json', url]);
        assert.equal(r.code, 0, r.stderr);
        return JSON.parse(r.stdout) as Report;
      };
      const http = await run('http://reviews:9080/');
      assert.equal(http.request.address, '10.96.7.10');
      assert.deepEqual(clusters(http), [`outbound|9080||${REVIEWS}:100 -> 10.244.0.11:9081,10.244.0.12:9081`]);
      assert.deepEqual(http.result.sources, ['VirtualService/default/reviews@0']);
      const tcp = await run('tcp://db:5432');
      assert.deepEqual([tcp.result.listener, ...clusters(tcp)], ['10.96.7.30_5432', 'outbound|5432||db.default.svc.cluster.local:100 -> 10.244.1.5:5432']);
    });

    it('given a Kubernetes Deployment file should say that input is not implemented yet, naming the document', async () => {
      const dep = join(dir, 'dep.yaml');
      writeFileSync(dep, 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: reviews, namespace: default }\nspec: { template: {} }\n');
      const r = await runProgram('meshctl', ['x', 'simulate', '-f', dep, '-p', 'default', 'http://reviews:9080/']);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /not implemented yet: Kubernetes Deployment inputs \(.*dep\.yaml document 1 \(Deployment default\/reviews\)\); give its Pods/);
    });

    it('given a proxy no WorkloadEntry names should list the ones there are', async () => {
      const r = await runProgram('meshctl', ['x', 'simulate', '-f', EX, '-p', 'default/nope', 'http://reviews:9080/']);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /no WorkloadEntry default\/nope in the files \(WorkloadEntries in default: productpage-v1, ratings-v1/);
    });
  });
});

describe('meshctl x translate', function () {
  this.timeout(60_000);

  it('given the example should print the four config_dump sections and pass the checks', async () => {
    const r = await runProgram('meshctl', ['x', 'translate', '-f', EX, '-p', 'default/productpage-v1']);
    assert.equal(r.code, 0, r.stderr);
    const dump = JSON.parse(r.stdout) as { configs: Record<string, unknown>[] };
    assert.deepEqual(
      dump.configs.map((c) => c['@type']),
      ['ListenersConfigDump', 'RoutesConfigDump', 'ClustersConfigDump', 'EndpointsConfigDump'].map((t) => `type.googleapis.com/envoy.admin.v3.${t}`),
    );
    const clustersDump = dump.configs[2]!['dynamic_active_clusters'] as { cluster: { name: string } }[];
    assert.ok(clustersDump.some((c) => c.cluster.name === `outbound|9080|v2|${REVIEWS}`));
    assert.match(r.stderr, /proto validation and consistency checks passed/);
  });

  it('given a route naming a cluster nobody serves should report the consistency problem', () => {
    const t = translate({
      listeners: [],
      clusters: [],
      endpoints: [],
      routes: [{ name: '9080', virtualHosts: [{ name: 'vh', domains: ['*'], routes: [{ name: 'r', match: { prefix: '/' }, route: { cluster: 'outbound|9080||missing' } }] }] }],
    });
    assert.equal(t.problems.length, 1);
    assert.match(t.problems[0]!, /^consistency: .*outbound\|9080\|\|missing/);
  });
});

describe('parseRequest', () => {
  const cases: { text: string; want: Partial<ReturnType<typeof parseRequest>> }[] = [
    { text: "POST http://reviews:9080/a?b=1 -H 'x-a: 1' -H \"x-b: two words\"", want: { method: 'POST', protocol: 'http', host: 'reviews', port: 9080, path: '/a?b=1', headers: { 'x-a': '1', 'x-b': 'two words' } } },
    { text: 'http://reviews', want: { method: 'GET', host: 'reviews', port: 80, path: '/', explicitPort: false } },
    { text: 'tls://api.example.com:443', want: { protocol: 'tls', host: 'api.example.com', port: 443 } },
  ];
  for (const c of cases) {
    it(`given "${c.text}" should read ${JSON.stringify(c.want)}`, () => {
      const got = parseRequest(c.text);
      for (const [k, v] of Object.entries(c.want)) assert.deepEqual(got[k as keyof typeof got], v, k);
    });
  }
  it('given an unknown scheme should say which', () => {
    assert.throws(() => parseRequest('ftp://x/'), /unknown scheme "ftp"/);
  });
});
