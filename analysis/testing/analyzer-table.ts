/**
 * Table tests of analyzers as Istio's are organised: input files (under analysis/testdata/) and the
 * expected multiset of `(code, resource)` findings, written `IST0101 VirtualService default/reviews`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SETTINGS, type AnalysisSettings, type MultiClusterInputs } from '../analysis-context.js';
import type { Analyzer } from '../analyzer.js';
import { originOf } from '../diagnostic.js';
import { resourcesFromText } from '../input-resources.js';
import type { Resource } from '../resource.js';
import { runAnalysis } from '../run-analysis.js';

// NOTE: tests run compiled from dist/analysis/testing/; the testdata stays in the source tree.
/** The folder of analyzer test inputs. */
export const TESTDATA_DIR = fileURLToPath(new URL('../../../analysis/testdata/', import.meta.url));

/** One case: files (relative to {@link TESTDATA_DIR}), expected findings, optional mesh config. */
export interface AnalyzerCase {
  readonly name: string;
  readonly files: readonly string[];
  /** `CODE Kind namespace/name`, one per finding (a multiset: order is ignored, repeats count). */
  readonly expected: readonly string[];
  readonly meshConfig?: Record<string, unknown>;
  /**
   * A multi-cluster case, as Istio's multi-cluster analyzer tests model two clusters with files: `files`
   * are the local cluster named `local`, each remote cluster is named with its files.
   */
  readonly clusters?: { readonly local: string; readonly remotes: Readonly<Record<string, readonly string[]>> };
}

function multiClusterOf(c: AnalyzerCase): MultiClusterInputs | undefined {
  if (!c.clusters) return undefined;
  return { local: c.clusters.local, remotes: Object.entries(c.clusters.remotes).map(([cluster, files]) => ({ cluster, resources: readTestResources(files) })) };
}

/** Reads test files into resources; a file that does not read cleanly fails the test. */
export function readTestResources(files: readonly string[]): Resource[] {
  return files.flatMap((f) => {
    const { resources, problems } = resourcesFromText(readFileSync(`${TESTDATA_DIR}${f}`), f, 'default');
    assert.deepEqual(problems, [], `testdata ${f} must read cleanly`);
    return resources;
  });
}

/** The `CODE origin` findings of `analyzers` over `files`, sorted. */
export function findings(analyzers: readonly Analyzer[], files: readonly string[], settings: AnalysisSettings = DEFAULT_SETTINGS): string[] {
  const { diagnostics } = runAnalysis(readTestResources(files), analyzers, { settings });
  return diagnostics.map((d) => `${d.type.code} ${originOf(d)}`).sort();
}

/** Declares one mocha test per case for `analyzers`. */
export function analyzerTable(analyzers: readonly Analyzer[], cases: readonly AnalyzerCase[]): void {
  for (const c of cases) {
    it(c.name, () => {
      const settings = { ...DEFAULT_SETTINGS, meshConfig: c.meshConfig ?? {} };
      const multiCluster = multiClusterOf(c);
      const { diagnostics } = runAnalysis(readTestResources(c.files), analyzers, { settings, ...(multiCluster ? { multiCluster } : {}) });
      const got = diagnostics.map((d) => `${d.type.code} ${originOf(d)}`).sort();
      assert.deepEqual(got, [...c.expected].sort());
      for (const d of diagnostics) assert.ok(analyzers.some((a) => a.name === d.analyzer), `finding from ${d.analyzer}`);
    });
  }
}
