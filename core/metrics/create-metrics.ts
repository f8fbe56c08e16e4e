import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import type { ProgramName } from '../program.js';
import { buildInfo } from '../version.js';
import { metricsOf, type CounterName, type GaugeName, type HistogramName, type LabelNamesOf } from './metric-catalogue.js';
import type { MetricDeclaration, MetricType } from './metric-declaration.js';

/** Thrown for a handle of a metric the program does not export, or of another kind. */
export class MetricsError extends Error {
  override readonly name = 'MetricsError';
}

/** Options of `createMetrics`. */
export interface MetricsOptions {
  /** The `tag` label of `mesh_build`; default `buildInfo().version`. */
  tag?: string;
  /** Collect prom-client's default process metrics; default true. */
  processMetrics?: boolean;
}

/** The metrics of one program on a registry of its own. Later folders take handles, never create metrics. */
export interface Metrics {
  readonly program: ProgramName;
  readonly registry: Registry;
  counter<N extends CounterName>(name: N): Counter<LabelNamesOf<N>>;
  gauge<N extends GaugeName>(name: N): Gauge<LabelNamesOf<N>>;
  histogram<N extends HistogramName>(name: N): Histogram<LabelNamesOf<N>>;
  /** The Prometheus text exposition of every metric. */
  text(): Promise<string>;
  /** The content type of `text()`. */
  readonly contentType: string;
}

/**
 * A fresh registry with every catalogue metric `program` exports, the default process metrics, and
 * `mesh_build{component=<program>,tag=<version>} 1`. meshctl exports no catalogue metric (it serves
 * none), so its registry holds the process metrics only.
 */
export function createMetrics(program: ProgramName, options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  const made = new Map<string, { type: MetricType; metric: Metric }>();
  for (const d of metricsOf(program)) made.set(d.name, { type: d.type, metric: makeMetric(d, registry) });
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const build = made.get('mesh_build');
  if (build) (build.metric as Gauge).set({ component: program, tag: options.tag ?? buildInfo().version }, 1);

  const handle = (name: string, type: MetricType): Metric => {
    const entry = made.get(name);
    if (!entry) throw new MetricsError(`metric ${name} is not exported by ${program}`);
    if (entry.type !== type) throw new MetricsError(`metric ${name} is a ${entry.type}, not a ${type}`);
    return entry.metric;
  };
  return {
    program,
    registry,
    counter: <N extends CounterName>(name: N) => handle(name, 'counter') as Counter<LabelNamesOf<N>>,
    gauge: <N extends GaugeName>(name: N) => handle(name, 'gauge') as Gauge<LabelNamesOf<N>>,
    histogram: <N extends HistogramName>(name: N) => handle(name, 'histogram') as Histogram<LabelNamesOf<N>>,
    text: () => registry.metrics(),
    contentType: registry.contentType,
  };
}

function makeMetric(d: MetricDeclaration, registry: Registry): Metric {
  const common = { name: d.name, help: d.help, labelNames: [...d.labelNames], registers: [registry] };
  switch (d.type) {
    case 'counter':
      return new Counter(common);
    case 'gauge':
      return new Gauge(common);
    case 'histogram':
      return new Histogram({ ...common, buckets: [...(d.buckets ?? [])] });
  }
}
