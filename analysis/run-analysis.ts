/** Runs analyzers over resources and returns the findings, suppressed, filtered by namespace and ordered. */
import { AnalysisContext, DEFAULT_SETTINGS, type AnalysisSettings, type MultiClusterInputs } from './analysis-context.js';
import type { Analyzer } from './analyzer.js';
import { originOf, referenceOfDiagnostic, type Diagnostic } from './diagnostic.js';
import { MESSAGES } from './message-catalogue.js';
import type { Resource } from './resource.js';
import { isSuppressed, type Suppression } from './suppression.js';

/** What {@link runAnalysis} does besides running every analyzer. */
export interface RunOptions {
  readonly settings?: AnalysisSettings;
  readonly suppressions?: readonly Suppression[];
  /**
   * Keep only findings about resources in this namespace or cluster-scoped (as istioctl does without
   * `-A`); undefined keeps every finding.
   */
  readonly namespace?: string;
  /** The local cluster's name and the remote clusters' resources, for the multi-cluster analyzers. */
  readonly multiCluster?: MultiClusterInputs;
}

/** The outcome of one analysis. */
export interface AnalysisResult {
  /** Findings after suppression and namespace filtering, ordered by origin, reference and code. */
  readonly diagnostics: readonly Diagnostic[];
  /** Names of the analyzers that ran. */
  readonly analyzers: readonly string[];
}

/**
 * Runs `analyzers` over `resources`. An analyzer that throws is reported as IST0001 InternalError naming
 * it, and the others still run.
 */
export function runAnalysis(resources: readonly Resource[], analyzers: readonly Analyzer[], opts: RunOptions = {}): AnalysisResult {
  const ctx = new AnalysisContext(resources, opts.settings ?? DEFAULT_SETTINGS, opts.multiCluster);
  for (const a of analyzers) {
    ctx.analyzer = a.name;
    try {
      a.analyze(ctx);
    } catch (e) {
      ctx.report(MESSAGES.InternalError, undefined, `analyzer ${a.name} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const ns = opts.namespace;
  const diagnostics = ctx.diagnostics
    .filter((d) => ns === undefined || !d.resource || d.resource.namespace === '' || d.resource.namespace === ns)
    .filter((d) => !isSuppressed(d, opts.suppressions ?? []));
  return { diagnostics: sortDiagnostics(diagnostics), analyzers: analyzers.map((a) => a.name) };
}

/** Orders findings by origin, then reference, then code (stable otherwise), as istioctl prints them. */
export function sortDiagnostics(ds: readonly Diagnostic[]): Diagnostic[] {
  return [...ds].sort((a, b) => originOf(a).localeCompare(originOf(b)) || referenceOfDiagnostic(a).localeCompare(referenceOfDiagnostic(b)) || a.type.code.localeCompare(b.type.code));
}
