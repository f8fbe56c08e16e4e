import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { CRD_MANIFEST_PATH } from '../crds/index.js';
import { unmarshalYAML, type GoMap } from '../templates/index.js';
import { chartDir, coalesceValues, DEFAULT_KUBE_VERSION, HELM_VERSION, loadChart, mergeValues, renderChart } from './index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TESTDATA = `${ROOT}install/testdata/`;

interface ChartCase {
  readonly name: string;
  readonly chart: string;
  readonly release: string;
  readonly namespace: string;
  readonly values: readonly string[];
}
const CASES = JSON.parse(readFileSync(`${TESTDATA}chart-cases.json`, 'utf8')) as ChartCase[];

function userValues(c: ChartCase): GoMap {
  return c.values.reduce<GoMap>((acc, f) => mergeValues(acc, unmarshalYAML(readFileSync(`${TESTDATA}values/${f}`, 'utf8')) as GoMap), {});
}

function ours(c: ChartCase): string {
  return renderChart(loadChart(chartDir(c.chart)), userValues(c), { name: c.release, namespace: c.namespace }).text;
}

const golden = (c: ChartCase): string => readFileSync(`${TESTDATA}golden/${c.name}.yaml`, 'utf8');

describe('renderChart against helm template (committed goldens written by hack/helm/update-goldens.mjs)', () => {
  for (const c of CASES) {
    it(`given chart ${c.chart} with values [${c.values.join(', ')}] (${c.name}), should print the same bytes as helm template`, () => {
      assert.equal(ours(c), golden(c));
    });
  }
  it('given the golden cases, should cover every chart with its defaults and at least two value sets', () => {
    for (const chart of ['base', 'meshd', 'gateway']) {
      const mine = CASES.filter((c) => c.chart === chart);
      assert.ok(mine.some((c) => c.values.length === 0), `${chart}: default values`);
      assert.ok(mine.filter((c) => c.values.length > 0).length >= 2, `${chart}: two value sets`);
    }
  });
});

// NOTE: finds helm as the project builds it (hack/helm/build.sh into the test-bin cache), or MESH_HELM.
function findHelm(): { path?: string; why: string } {
  if (process.env['MESH_HELM']) return { path: process.env['MESH_HELM'], why: 'MESH_HELM' };
  const base = process.env['MESH_TEST_BIN_DIR'] ?? join(homedir(), '.cache/mesh/test-bin');
  const cached = join(base, `helm-${HELM_VERSION}`, 'helm');
  if (existsSync(cached)) return { path: cached, why: 'cached' };
  const built = spawnSync('bash', [`${ROOT}hack/helm/build.sh`], { encoding: 'utf8', timeout: 120_000 });
  if (built.status === 0 && existsSync(cached)) return { path: cached, why: 'built' };
  return { why: `helm ${HELM_VERSION} is not in ${base} and could not be built within 2 minutes (${(built.stderr ?? '').trim().split('\n').pop() ?? built.error?.message}); the goldens alone were compared` };
}

// Skipped as a whole, the reason printed, when no helm binary is cached or buildable: the committed goldens are still
// compared by the tests above.
describe('renderChart against a live helm binary (when present or buildable)', function () {
  this.timeout(180_000);
  let helm: string | undefined;
  before(function () {
    const found = findHelm();
    if (!found.path) {
      console.log(`  NOTE: ${found.why}`);
      this.skip(); // no helm binary cached and none buildable here (reason printed above); the committed goldens were compared instead
    }
    helm = found.path;
  });

  function helmTemplate(c: ChartCase): string {
    const args = ['template', c.release, chartDir(c.chart), '--namespace', c.namespace, '--kube-version', DEFAULT_KUBE_VERSION];
    for (const v of c.values) args.push('--values', `${TESTDATA}values/${v}`);
    const r = spawnSync(helm as string, args, { encoding: 'utf8' });
    assert.equal(r.status, 0, `helm ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }

  for (const c of CASES) {
    it(`given ${c.name}, should render what helm template renders now, and the golden should be current`, () => {
      const h = helmTemplate(c);
      assert.equal(ours(c), h);
      assert.equal(golden(c), h, `golden ${c.name} is stale: run node hack/helm/update-goldens.mjs`);
    });
  }

  it('given every chart, should pass helm lint', () => {
    for (const chart of ['base', 'meshd', 'gateway']) {
      const r = spawnSync(helm as string, ['lint', chartDir(chart)], { encoding: 'utf8' });
      assert.equal(r.status, 0, `helm lint ${chart}: ${r.stdout}${r.stderr}`);
    }
  });

  it('given a chart with a template error, should fail as helm does and name the template', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mesh-chart-'));
    try {
      mkdirSync(join(dir, 'templates'));
      writeFileSync(join(dir, 'Chart.yaml'), 'apiVersion: v2\nname: broken\nversion: 0.1.0\n');
      writeFileSync(join(dir, 'templates', 'cm.yaml'), 'kind: ConfigMap\ndata:\n  x: {{ required "x is required" .Values.x }}\n');
      const r = spawnSync(helm as string, ['template', 'r', dir], { encoding: 'utf8' });
      assert.notEqual(r.status, 0);
      assert.match(r.stderr, /broken\/templates\/cm\.yaml.*x is required/);
      assert.throws(() => renderChart(loadChart(dir), {}, { name: 'r', namespace: 'default' }), /broken\/templates\/cm\.yaml.*x is required/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the charts have one source for CRDs and injection templates', () => {
  it('given the base chart, should read its CRDs from crds/manifests (the file npm run gen:crds writes)', () => {
    assert.equal(realpathSync(join(chartDir('base'), 'files/crd-all.gen.yaml')), realpathSync(CRD_MANIFEST_PATH));
    const docs = renderChart(loadChart(chartDir('base')), {}, { name: 'b', namespace: 'mesh-system' }).manifests.filter((m) => m.kind === 'CustomResourceDefinition');
    const want = parseAllDocuments(readFileSync(CRD_MANIFEST_PATH, 'utf8')).map((d) => d.toJS() as unknown).filter((d) => d !== null);
    assert.deepEqual(docs.map((d) => parseAllDocuments(d.content)[0].toJS() as unknown), want);
  });
  it('given the meshd chart, should ship webhooks/templates/*.yaml byte for byte in the mesh-sidecar-injector ConfigMap', () => {
    const cm = renderChart(loadChart(chartDir('meshd')), {}, { name: 'm', namespace: 'mesh-system' }).manifests.find((m) => m.content.includes('name: mesh-sidecar-injector\n'));
    assert.ok(cm);
    const config = (parseAllDocuments(cm.content)[0].toJS() as { data: { config: string } }).data.config;
    const templates = (parseAllDocuments(config)[0].toJS() as { templates: Record<string, string> }).templates;
    for (const name of ['sidecar', 'gateway', 'grpc-simple', 'grpc-agent']) {
      assert.equal(templates[name].trim(), readFileSync(`${ROOT}webhooks/templates/${name}.yaml`, 'utf8').trim(), name);
    }
  });
});

describe('coalesceValues', () => {
  const table: { name: string; defaults: GoMap; user: GoMap; want: GoMap; warns?: number }[] = [
    { name: 'user scalar wins, defaults fill', defaults: { a: 1, b: { c: 2, d: 3 } }, user: { b: { c: 9 } }, want: { a: 1, b: { c: 9, d: 3 } } },
    { name: 'user null deletes the default key', defaults: { a: 1, b: { c: 2 } }, user: { a: null, b: { c: null } }, want: { b: {} } },
    { name: 'a user scalar over a default table', defaults: { a: { b: 1 } }, user: { a: 'x' }, want: { a: 'x' } },
    { name: 'a scalar default under a user table is ignored (warning)', defaults: { a: { b: 1 } }, user: { a: { b: { c: 1 } } }, want: { a: { b: { c: 1 } } }, warns: 1 },
    { name: 'lists are replaced, not merged', defaults: { l: [1, 2] }, user: { l: [3] }, want: { l: [3] } },
  ];
  for (const t of table) {
    it(`given ${t.name}, should coalesce as Helm does`, () => {
      const warns: string[] = [];
      const defaults = structuredClone(t.defaults);
      assert.deepEqual(coalesceValues(t.defaults, t.user, (w) => warns.push(w)), t.want);
      assert.deepEqual(t.defaults, defaults, 'defaults unchanged');
      if (t.warns !== undefined) assert.equal(warns.length, t.warns);
    });
  }
});

describe('renderChart errors', () => {
  it('given a template whose output is not YAML, should name the template', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mesh-chart-'));
    try {
      mkdirSync(join(dir, 'templates'));
      writeFileSync(join(dir, 'Chart.yaml'), 'apiVersion: v2\nname: bad\nversion: 0.1.0\n');
      writeFileSync(join(dir, 'templates', 'x.yaml'), 'kind: ConfigMap\n  data: [\n');
      assert.throws(() => renderChart(loadChart(dir), {}, { name: 'r', namespace: 'default' }), /YAML parse error on bad\/templates\/x\.yaml/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('given a chart without a version, should say which file and field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mesh-chart-'));
    try {
      writeFileSync(join(dir, 'Chart.yaml'), 'apiVersion: v2\nname: nov\n');
      assert.throws(() => loadChart(dir), /Chart\.yaml: validation: chart\.metadata\.version is required/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
