import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CORPUS_DIR } from './source-paths.js';

/** Annotation on an invalid corpus document: the field path it must be rejected for. */
export const EXPECT_ERROR_ANNOTATION = 'test.mesh.io/expect-error';
/** Annotation `"true"` on an invalid document that only the semantic checks reject (the schema accepts it). */
export const SEMANTIC_ANNOTATION = 'test.mesh.io/semantic';
/**
 * Annotation on a semantic document that the API server refuses all the same (by one of Istio's CEL rules or a
 * CRD-only schema rule such as Istio's `oneOf`): a piece of its message. meshd refuses it in its semantic checks;
 * `e2e/crds.test.ts` expects the API server's refusal with this message.
 */
export const API_SERVER_MESSAGE_ANNOTATION = 'test.mesh.io/api-server-message';
/** Annotation on a valid document: the field path of a warning it must produce. */
export const EXPECT_WARNING_ANNOTATION = 'test.mesh.io/expect-warning';

/** One document of the validation corpus. */
export interface CorpusDocument {
  /** File path, relative to the corpus directory (`valid/vs-basic.yaml`). */
  readonly file: string;
  /** Index of the document in its file. */
  readonly index: number;
  /** True for documents under `valid/`. */
  readonly valid: boolean;
  readonly object: unknown;
  /** For invalid documents: the path one of the errors must name. */
  readonly expectError?: string;
  /** For valid documents: the path one of the warnings must name. */
  readonly expectWarning?: string;
  /** True when only semantic checks reject the document (the API server's structural schema accepts it). */
  readonly semantic: boolean;
  /** For semantic documents the API server refuses all the same: a piece of its message. */
  readonly apiServerMessage?: string;
}

function annotations(object: unknown): Record<string, unknown> {
  const meta = (object as { metadata?: { annotations?: Record<string, unknown> } } | null)?.metadata;
  return meta?.annotations ?? {};
}

/**
 * Loads every YAML document of `dir/valid/*.yaml` and `dir/invalid/*.yaml` (the corpus shared with the
 * API-server test). Throws when a file does not parse or an invalid document lacks its annotation.
 */
export function loadCorpus(dir: string = CORPUS_DIR): CorpusDocument[] {
  const out: CorpusDocument[] = [];
  for (const sub of ['valid', 'invalid'] as const) {
    const files = readdirSync(join(dir, sub)).filter((f) => f.endsWith('.yaml')).sort();
    for (const name of files) {
      const file = `${sub}/${name}`;
      const docs = parseAllDocuments(readFileSync(join(dir, file), 'utf8'));
      docs.forEach((doc, index) => {
        if (doc.errors.length > 0) throw new Error(`corpus ${file} document ${index}: ${doc.errors[0]!.message}`);
        const object: unknown = doc.toJS();
        const a = annotations(object);
        const expectError = typeof a[EXPECT_ERROR_ANNOTATION] === 'string' ? (a[EXPECT_ERROR_ANNOTATION] as string) : undefined;
        const expectWarning = typeof a[EXPECT_WARNING_ANNOTATION] === 'string' ? (a[EXPECT_WARNING_ANNOTATION] as string) : undefined;
        if (sub === 'invalid' && expectError === undefined) {
          throw new Error(`corpus ${file} document ${index}: invalid documents need the ${EXPECT_ERROR_ANNOTATION} annotation`);
        }
        const semantic = a[SEMANTIC_ANNOTATION] === 'true';
        const message = a[API_SERVER_MESSAGE_ANNOTATION];
        const apiServerMessage = typeof message === 'string' ? message : undefined;
        if (apiServerMessage !== undefined && !semantic) {
          throw new Error(`corpus ${file} document ${index}: ${API_SERVER_MESSAGE_ANNOTATION} goes with ${SEMANTIC_ANNOTATION}: "true"`);
        }
        out.push({ file, index, valid: sub === 'valid', object, expectError, expectWarning, semantic, ...(apiServerMessage !== undefined ? { apiServerMessage } : {}) });
      });
    }
  }
  return out;
}

/** The distinct namespaces the corpus documents use (an API-server test creates them first). */
export function corpusNamespaces(docs: readonly CorpusDocument[]): string[] {
  const names = new Set<string>();
  for (const doc of docs) {
    const ns = (doc.object as { metadata?: { namespace?: unknown } } | null)?.metadata?.namespace;
    if (typeof ns === 'string') names.add(ns);
  }
  return [...names].sort();
}
