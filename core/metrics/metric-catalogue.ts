import type { ProgramName } from '../program.js';
import type { MetricDeclaration } from './metric-declaration.js';
import { PROGRAM_METRICS } from './metrics-programs.js';
import { SHARED_METRICS } from './metrics-shared.js';

/** Every metric of the spec, each declared once. */
export const METRICS = [...SHARED_METRICS, ...PROGRAM_METRICS] as const satisfies readonly MetricDeclaration[];

type Declared = (typeof METRICS)[number];
/** The name of any catalogued metric. */
export type MetricName = Declared['name'];
export type CounterName = Extract<Declared, { type: 'counter' }>['name'];
export type GaugeName = Extract<Declared, { type: 'gauge' }>['name'];
export type HistogramName = Extract<Declared, { type: 'histogram' }>['name'];
/** The label names of metric `N` as a union (never when it has none). */
export type LabelNamesOf<N extends MetricName> = Extract<Declared, { name: N }>['labelNames'][number];

/** The metrics `program` exports, in catalogue order. */
export function metricsOf(program: ProgramName): readonly MetricDeclaration[] {
  return METRICS.filter((m) => (m.programs as readonly ProgramName[]).includes(program));
}
