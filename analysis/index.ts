// The public surface of analysis/: Istio's analyzers and message codes over mesh config, files and cluster state.
export { ALL_ANALYZERS, analyzerByName } from './all-analyzers.js';
export type { Analyzer } from './analyzer.js';
export { AnalysisContext, DEFAULT_SETTINGS, type AnalysisSettings, type ClusterResources, type MultiClusterInputs, type Workload } from './analysis-context.js';
export { messageText, originOf, referenceOfDiagnostic, type Diagnostic } from './diagnostic.js';
export { resourcesFromText, mergeResources, type InputProblem, type InputResources } from './input-resources.js';
export { K, ORCH_GROUPS, ISTIO_GROUPS } from './kinds.js';
export { ALL_MESSAGES, LEVELS, MESSAGES, formatTemplate, levelRank, type Level, type MessageName, type MessageType } from './message-catalogue.js';
export { OUTPUT_FORMATS, DOCS_BASE, atLeast, diagnosticObject, formatDiagnostics, logLine, type OutputFormat } from './output-format.js';
export {
  CLUSTER_SCOPED_KINDS,
  friendlyName,
  kindKey,
  referenceOf,
  resourceKey,
  toResource,
  ResourceShapeError,
  type Resource,
  type ResourceOrigin,
} from './resource.js';
export { runAnalysis, sortDiagnostics, type AnalysisResult, type RunOptions } from './run-analysis.js';
export { parseSuppressions, isSuppressed, SuppressionError, SUPPRESS_ANNOTATION, type Suppression } from './suppression.js';
