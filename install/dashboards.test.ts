import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parser } from '@prometheus-io/lezer-promql';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { parseAllDocuments } from 'yaml';
import { chartDir, loadChart, renderChart } from './index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DASHBOARDS = `${ROOT}manifests/charts/meshd/files/dashboards/`;

interface MetricList {
  readonly metrics: readonly { readonly name: string; readonly type: string }[];
}
interface Target {
  readonly expr: string;
}
interface Panel {
  readonly title: string;
  readonly type: string;
  readonly targets?: readonly Target[];
}
interface Dashboard {
  readonly uid: string;
  readonly title: string;
  readonly panels: readonly Panel[];
  readonly templating: { readonly list: readonly { readonly name: string; readonly query: unknown }[] };
}

const HISTOGRAM_SUFFIXES = ['_bucket', '_sum', '_count'];

/** The metric names a query may select: the spec's, the proxies' standard ones, and Node's process metrics. */
function knownMetrics(): Set<string> {
  const out = new Set<string>();
  const addList = (file: string): void => {
    for (const m of (JSON.parse(readFileSync(file, 'utf8')) as MetricList).metrics) {
      if (m.type === 'Distribution') for (const s of HISTOGRAM_SUFFIXES) out.add(m.name + s);
      else out.add(m.name);
    }
  };
  addList(`${ROOT}../shared/spec/metrics.json`);
  addList(`${ROOT}manifests/proxy-standard-metrics.json`);
  // NOTE: meshd's registry collects prom-client's default metrics (core/metrics/create-metrics.ts): their
  // names come from prom-client itself, not from a list written here.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const m of registry.getMetricsAsArray()) {
    const type = (m as unknown as { type: string }).type;
    if (type === 'histogram') for (const s of HISTOGRAM_SUFFIXES) out.add(m.name + s);
    else out.add(m.name);
  }
  registry.clear();
  return out;
}

/** Parses a PromQL expression: its syntax errors and the metric names it selects. */
function checkPromQL(expr: string): { errors: string[]; metrics: string[] } {
  const errors: string[] = [];
  const metrics: string[] = [];
  const cursor = parser.parse(expr).cursor();
  do {
    if (cursor.type.isError) errors.push(`syntax error at ${cursor.from}: ${JSON.stringify(expr.slice(Math.max(0, cursor.from - 10), cursor.to + 10))}`);
    if (cursor.type.name === 'Identifier') {
      const at = cursor.node.parent;
      if (at?.type.name === 'VectorSelector') metrics.push(expr.slice(cursor.from, cursor.to));
    }
  } while (cursor.next());
  return { errors, metrics };
}

/** Every PromQL expression of a dashboard: panel targets and the metric selectors of label_values() variables. */
function expressions(d: Dashboard): { where: string; expr: string }[] {
  const out: { where: string; expr: string }[] = [];
  for (const p of d.panels) for (const t of p.targets ?? []) out.push({ where: `${d.uid} panel "${p.title}"`, expr: t.expr });
  for (const v of d.templating.list) {
    const q = typeof v.query === 'string' ? v.query : ((v.query as { query?: string } | null)?.query ?? '');
    const m = /^label_values\((.*),\s*[a-zA-Z_]\w*\)$/.exec(q);
    if (m?.[1]) out.push({ where: `${d.uid} variable ${v.name}`, expr: m[1] });
  }
  return out;
}

/** Problems of one expression: syntax errors and unknown metric names. */
function problems(expr: string, known: Set<string>): string[] {
  const { errors, metrics } = checkPromQL(expr);
  return [...errors, ...metrics.filter((m) => !known.has(m)).map((m) => `unknown metric ${m}`)];
}

const dashboards = (): Dashboard[] => readdirSync(DASHBOARDS).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.parse(readFileSync(`${DASHBOARDS}${f}`, 'utf8')) as Dashboard);

describe('Grafana dashboards of the meshd chart', () => {
  const known = knownMetrics();

  it('given the dashboards folder, should hold the control plane, mesh, service and workload dashboards', () => {
    assert.deepEqual(dashboards().map((d) => d.uid), ['mesh-control-plane', 'mesh-mesh', 'mesh-service', 'mesh-workload']);
  });

  for (const d of dashboards()) {
    it(`given dashboard ${d.uid}, should parse every query as PromQL and select only known metrics`, () => {
      const exprs = expressions(d);
      assert.ok(exprs.length > 0);
      const bad = exprs.flatMap(({ where, expr }) => problems(expr, known).map((p) => `${where}: ${p} in ${expr}`));
      assert.deepEqual(bad, []);
    });
  }

  const checks: { name: string; expr: string; want: RegExp }[] = [
    { name: 'a misspelt spec metric', expr: 'sum by (type) (rate(pilot_xds_push[1m]))', want: /^unknown metric pilot_xds_push$/ },
    { name: 'a misspelt proxy metric', expr: 'sum(rate(mesh_request_total{reporter="source"}[1m]))', want: /^unknown metric mesh_request_total$/ },
    { name: 'a histogram suffix on a counter', expr: 'rate(pilot_xds_pushes_bucket[1m])', want: /^unknown metric pilot_xds_pushes_bucket$/ },
    { name: 'a syntax error', expr: 'sum(rate(pilot_xds_pushes[1m])', want: /^syntax error at/ },
  ];
  for (const c of checks) {
    it(`given ${c.name}, should report it`, () => {
      const p = problems(c.expr, known);
      assert.equal(p.length, 1, p.join('; '));
      assert.match(p[0] ?? '', c.want);
    });
  }

  it('given the control plane dashboard, should chart versions, CPU, memory, event loop, pushes, connections, errors, push time and size, convergence, rejections, CA and webhooks', () => {
    const d = dashboards().find((x) => x.uid === 'mesh-control-plane');
    assert.ok(d);
    const used = new Set(expressions(d).flatMap(({ expr }) => checkPromQL(expr).metrics));
    for (const m of [
      'mesh_build', 'process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_p99_seconds', 'pilot_xds_pushes', 'pilot_xds',
      'pilot_xds_push_context_errors', 'pilot_xds_push_time_bucket', 'pilot_xds_config_size_bytes_bucket', 'pilot_proxy_convergence_time_bucket',
      'pilot_total_xds_rejects', 'pilot_total_rejected_configs', 'certauth_server_success_cert_issuance_count', 'certauth_server_csr_sign_err_count',
      'sidecar_injection_requests_total', 'webhook_validation_failed',
    ]) assert.ok(used.has(m), `no panel selects ${m}`);
  });
});

interface Obj {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  spec?: { template?: { metadata?: { annotations?: Record<string, string> } } };
}
const render = (chart: string, values: Record<string, unknown> = {}): Obj[] =>
  parseAllDocuments(renderChart(loadChart(chartDir(chart)), values as never, { name: chart, namespace: 'mesh-system' }).text).map((d) => d.toJS() as Obj);

describe('observability objects of the charts', () => {
  it('given the meshd chart, should ship each dashboard file as a ConfigMap labelled grafana_dashboard "1"', () => {
    const cms = render('meshd').filter((o) => o.kind === 'ConfigMap' && o.metadata.labels?.['grafana_dashboard'] === '1');
    assert.deepEqual(cms.map((c) => c.metadata.name), ['mesh-control-plane-dashboard', 'mesh-mesh-dashboard', 'mesh-service-dashboard', 'mesh-workload-dashboard']);
    for (const cm of cms) {
      const key = `${cm.metadata.name.replace(/-dashboard$/, '')}.json`;
      assert.deepEqual(JSON.parse(cm.data?.[key] ?? ''), JSON.parse(readFileSync(`${DASHBOARDS}${key}`, 'utf8')));
    }
  });

  it('given a named revision or dashboards.enabled=false, should ship no dashboards (the default revision owns them)', () => {
    for (const v of [{ revision: 'canary' }, { dashboards: { enabled: false } }]) {
      assert.equal(render('meshd', v).filter((o) => o.metadata.labels?.['grafana_dashboard'] === '1').length, 0, JSON.stringify(v));
    }
  });

  it('given serviceMonitor and podMonitor off by default and on by values, should render them only when on', () => {
    const kinds = (v?: Record<string, unknown>): string[] => render('meshd', v).map((o) => o.kind).filter((k) => k.endsWith('Monitor'));
    assert.deepEqual(kinds(), []);
    assert.deepEqual(kinds({ serviceMonitor: { enabled: true }, podMonitor: { enabled: true } }), ['PodMonitor', 'ServiceMonitor']);
  });

  it('given meshd and a gateway, should carry Prometheus scrape annotations on their pods', () => {
    const meshd = render('meshd').find((o) => o.kind === 'Deployment');
    assert.deepEqual({ ...meshd?.spec?.template?.metadata?.annotations }, { ...meshd?.spec?.template?.metadata?.annotations, 'prometheus.io/scrape': 'true', 'prometheus.io/port': '15014' });
    const gw = render('gateway').find((o) => o.kind === 'Deployment');
    const a = gw?.spec?.template?.metadata?.annotations ?? {};
    assert.equal(a['prometheus.io/scrape'], 'true');
    assert.equal(a['prometheus.io/port'], '15020');
    assert.equal(a['prometheus.io/path'], '/stats/prometheus');
  });
});
