// The public surface of crds/: mesh.io kinds, their schemas, TypeScript types, validators and CRDs.
export { KINDS, KIND_NAMES, type KindName } from './kinds.js';
export type { KindDefinition, PrinterColumn } from './schema/kind-definition.js';
export type { SchemaNode } from './schema/builders.js';
export type { Infer } from './schema/infer.js';
export * from './types.js';
export { validateConfig, MAX_ISSUES, type ValidationResult } from './validation/validate-config.js';
export type { ValidationIssue, IssueLayer } from './validation/issue.js';
export { kindOf, UnknownKindError, type ResolvedKind } from './validation/kind-of.js';
export { openApiV3Schema, renderCrd, renderCrds, renderCrdsYaml, type CustomResourceDefinition } from './render-crds.js';
export { CRD_MANIFEST_PATH, CORPUS_DIR } from './source-paths.js';
export {
  loadCorpus,
  corpusNamespaces,
  EXPECT_ERROR_ANNOTATION,
  EXPECT_WARNING_ANNOTATION,
  SEMANTIC_ANNOTATION,
  type CorpusDocument,
} from './corpus.js';
export { DEFAULT_YAML_LIMITS, objectLimitError, type YamlLimits } from './yaml/yaml-limits.js';
export { parseConfigYaml, withDefaultNamespace, type ParsedDocument, type ParsedYaml, type ParseOptions } from './yaml/parse-config-yaml.js';
export { YamlWorkerParser, type YamlWorkerParserOptions } from './yaml/yaml-worker-parser.js';
