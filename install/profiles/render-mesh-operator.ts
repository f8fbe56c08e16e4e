/**
 * Renders the enabled releases of an effective MeshOperator with {@link renderChart}: the shared render
 * API of `meshctl manifest generate`, `install` and the operator.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { GoMap } from '../../templates/index.js';
import { CHARTS_DIR } from '../chart-paths.js';
import { loadChart } from '../load-chart.js';
import { renderChart, type RenderedChart } from '../render-chart.js';
import { COMPONENT_NAMES, componentReleases, type ComponentName, type ComponentRelease } from './component-values.js';
import { MeshOperatorError } from './mesh-operator-error.js';

/** Options of {@link renderMeshOperator}. */
export interface RenderMeshOperatorOptions {
  /** The folder holding the chart folders (default the shipped charts). */
  readonly chartsDir?: string;
  /** Render only these components (default every enabled one). */
  readonly components?: readonly ComponentName[];
}

/** One rendered release. */
export interface RenderedRelease extends ComponentRelease {
  readonly rendered: RenderedChart;
}

// NOTE: istioctl's --component takes Istio's names in any case; meshd is our name for pilot.
const ALIASES: Record<string, ComponentName> = {
  base: 'base',
  pilot: 'pilot',
  meshd: 'pilot',
  ingressgateways: 'ingressGateways',
  ingressgateway: 'ingressGateways',
  egressgateways: 'egressGateways',
  egressgateway: 'egressGateways',
};

/**
 * Parses `--component` names (Istio's: `base`, `pilot`, `ingressGateways`, `egressGateways`; any case).
 * @throws MeshOperatorError naming an unknown one
 */
export function parseComponentNames(names: readonly string[]): ComponentName[] {
  const want = new Set<ComponentName>();
  for (const n of names) {
    const c = ALIASES[n.toLowerCase()];
    if (c === undefined) throw new MeshOperatorError(`--component ${n}: unknown component (one of ${COMPONENT_NAMES.join(', ')})`);
    want.add(c);
  }
  return COMPONENT_NAMES.filter((c) => want.has(c));
}

/**
 * Resolves the charts folder of a `--manifests/-d` argument: `<dir>/charts` when it exists (Istio's
 * manifests layout), else `dir` itself when it holds chart folders.
 */
export function chartsDirOf(manifestsDir: string): string {
  if (existsSync(join(manifestsDir, 'charts', 'meshd', 'Chart.yaml'))) return join(manifestsDir, 'charts');
  if (existsSync(join(manifestsDir, 'meshd', 'Chart.yaml'))) return manifestsDir;
  throw new MeshOperatorError(`--manifests ${manifestsDir}: neither ${join(manifestsDir, 'charts')} nor ${manifestsDir} holds the charts (meshd/Chart.yaml)`);
}

/** Renders the enabled (and selected) releases of an effective MeshOperator spec, in install order. */
export function renderMeshOperator(spec: GoMap, options: RenderMeshOperatorOptions = {}): RenderedRelease[] {
  const chartsDir = options.chartsDir ?? CHARTS_DIR;
  const selected = options.components ? new Set(options.components) : undefined;
  const out: RenderedRelease[] = [];
  const charts = new Map<string, ReturnType<typeof loadChart>>();
  for (const r of componentReleases(spec)) {
    if (!r.enabled || (selected && !selected.has(r.component))) continue;
    let chart = charts.get(r.chart);
    if (chart === undefined) {
      chart = loadChart(join(chartsDir, r.chart));
      charts.set(r.chart, chart);
    }
    out.push({ ...r, rendered: renderChart(chart, r.values, { name: r.release, namespace: r.namespace }) });
  }
  return out;
}
