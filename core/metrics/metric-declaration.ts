import type { ProgramName } from '../program.js';

/** prom-client kinds; the spec's Sum, LastValue and Distribution. */
export const METRIC_TYPES = ['counter', 'gauge', 'histogram'] as const;
export type MetricType = (typeof METRIC_TYPES)[number];

/** One metric of the spec: exact name, kind, help, label names and the programs that export it. */
export interface MetricDeclaration {
  readonly name: string;
  readonly type: MetricType;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly programs: readonly ProgramName[];
  /** Histogram bucket upper bounds. */
  readonly buckets?: readonly number[];
}

/** The programs of the spec's shared group. */
export const SHARED = ['operator', 'pilot-discovery', 'pilot-agent'] as const;
/** The operator group's pilot_orch_* metrics, also counted by meshd. */
export const OPERATOR_AND_DISCOVERY = ['operator', 'pilot-discovery'] as const;

/** Durations in seconds (Istio's 0.01s..30s). */
export const SECOND_BUCKETS = [0.01, 0.1, 0.5, 1, 3, 5, 10, 20, 30] as const;
/** Short durations in seconds (DNS upstream round trips). */
export const FAST_SECOND_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5] as const;
/** Durations in milliseconds. */
export const MILLISECOND_BUCKETS = [1, 5, 10, 50, 100, 500, 1000, 5000, 10000] as const;
/** Sizes in bytes: 1 to 4 MiB by powers of 4. */
export const SIZE_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304] as const;
