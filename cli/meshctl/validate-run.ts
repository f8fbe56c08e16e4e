/**
 * `meshctl validate -f FILE...` (alias `v`): checks mesh.io documents with the same validators meshd's
 * config sources, the CRDs and the webhook use, before they reach a cluster. Directories are read
 * recursively (`*.yaml`, `*.yml`, `*.json`); `-` reads standard input. Documents of other API groups
 * (Deployments, Services, ...) are skipped and counted; a document of Istio's API groups
 * (`networking.istio.io`, ...) is an error, as meshd rejects it. Every error of a document is listed
 * (schema errors do not hide semantic ones); `-x=false` leaves out the structural (schema) layer;
 * `-o json|yaml` prints one report per document. Files are read with the same parse limits as meshd
 * (crds/ DEFAULT_YAML_LIMITS: file size, documents, keys, aliases; duplicate keys are errors).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { stringify as toYaml } from 'yaml';
import { DEFAULT_YAML_LIMITS, parseConfigYaml, validateConfig, type YamlLimits } from '../../crds/index.js';
import { CliError, type RunContext } from '../framework/index.js';

/** What validating one document found. */
export interface DocumentReport {
  readonly file: string;
  /** 1-based position in the file. */
  readonly document: number;
  /** `Kind namespace/name`, as far as it could be read. */
  readonly what: string;
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
  /** True for a document that is not a mesh.io kind. */
  readonly skipped: boolean;
}

const MESH_API_GROUP = /^[a-z0-9.-]*\bmesh\.io\//;
const ISTIO_API_GROUP = /^([a-z0-9.-]*)\bistio\.io\/(.*)$/;

/** What {@link validateText} checks. */
export interface ValidateOptions {
  /** `--referential`: include the structural (schema) layer; default true. */
  readonly structural?: boolean;
}

function describe(obj: Record<string, unknown>): string {
  const meta = (obj['metadata'] ?? {}) as { name?: unknown; namespace?: unknown };
  const name = typeof meta.name === 'string' ? meta.name : '?';
  const ns = typeof meta.namespace === 'string' ? `${meta.namespace}/` : '';
  return `${typeof obj['kind'] === 'string' ? obj['kind'] : 'unknown kind'} ${ns}${name}`;
}

/** Validates every document of one file's text, within `limits` (default crds/ DEFAULT_YAML_LIMITS). */
export function validateText(text: string | Uint8Array, file: string, limits: YamlLimits = DEFAULT_YAML_LIMITS, opts: ValidateOptions = {}): DocumentReport[] {
  const parsed = parseConfigYaml(text, limits);
  if (!parsed.ok) return [{ file, document: 0, what: 'file', errors: [parsed.error], warnings: [], skipped: false }];
  return parsed.documents.flatMap((doc): DocumentReport[] => {
    const document = doc.document;
    if (doc.error !== undefined) {
      const what = doc.kind !== undefined ? `${doc.kind} ${doc.namespace ? `${doc.namespace}/` : ''}${doc.name ?? '?'}` : 'unparsed document';
      return [{ file, document, what, errors: [doc.error], warnings: [], skipped: false }];
    }
    const raw = doc.value;
    if (raw === null || raw === undefined) return [];
    if (typeof raw !== 'object' || Array.isArray(raw)) {
      return [{ file, document, what: 'document', errors: ['not an object with apiVersion, kind and metadata'], warnings: [], skipped: false }];
    }
    const obj = raw as Record<string, unknown>;
    const what = describe(obj);
    const istio = typeof obj['apiVersion'] === 'string' ? ISTIO_API_GROUP.exec(obj['apiVersion']) : null;
    if (istio) {
      const mesh = `${istio[1]}mesh.io/${istio[2]}`;
      return [{ file, document, what, errors: [`apiVersion: "${String(obj['apiVersion'])}" is Istio's API group, which meshd does not serve: use "${mesh}"`], warnings: [], skipped: false }];
    }
    if (typeof obj['apiVersion'] !== 'string' || !MESH_API_GROUP.test(obj['apiVersion'])) {
      return [{ file, document, what, errors: [], warnings: [], skipped: true }];
    }
    const result = validateConfig(obj);
    const warnings = result.warnings.map((w) => `${w.path}: ${w.message}`);
    const kept = result.ok ? [] : result.errors.filter((e) => opts.structural !== false || e.layer !== 'schema' || e.path === 'apiVersion' || e.path === 'kind');
    const errors = kept.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message));
    return [{ file, document, what, errors, warnings, skipped: false }];
  });
}

/** The files a path names: itself, or every YAML/JSON file below a directory, sorted. */
function filesOf(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    throw new CliError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`);
  }
  if (!st.isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .filter((e) => !e.name.startsWith('.'))
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => (e.isDirectory() ? filesOf(join(path, e.name)) : /\.(ya?ml|json)$/.test(e.name) ? [join(path, e.name)] : []));
}

/** Runs `meshctl validate` (the tree is in validate-command.ts). */
export function runValidate(ctx: RunContext): number {
  const inputs = [...ctx.flags.strings('filename'), ...ctx.args];
  if (inputs.length === 0) throw new CliError('no file to validate: give one or more with -f (a file, a directory, or - for standard input)');
  const { stdout, stderr } = ctx.io;
  const output = ctx.flags.string('output');
  if (output !== '' && output !== 'json' && output !== 'yaml') throw new CliError(`--output "${output}": expected json or yaml (or nothing for text)`);
  const structural = ctx.flags.bool('referential');
  let invalid = 0;
  let skipped = 0;
  const all: DocumentReport[] = [];
  for (const file of inputs.flatMap((p) => (p === '-' ? ['-'] : filesOf(p)))) {
    const text = file === '-' ? readFileSync(0) : readFileSync(file);
    const reports = validateText(text, file === '-' ? '<stdin>' : file, DEFAULT_YAML_LIMITS, { structural });
    all.push(...reports);
    invalid += reports.filter((r) => r.errors.length > 0).length;
    skipped += reports.filter((r) => r.skipped).length;
    if (output !== '') continue;
    for (const r of reports) {
      for (const w of r.warnings) stderr.write(`Warning: ${r.file} document ${r.document} (${r.what}): ${w}\n`);
      for (const e of r.errors) stderr.write(r.document === 0 ? `Error: ${r.file}: ${e}\n` : `Error: ${r.file} document ${r.document} (${r.what}): ${e}\n`);
    }
    if (!reports.some((r) => r.errors.length > 0)) stdout.write(`"${file === '-' ? '<stdin>' : file}" is valid\n`);
  }
  if (output !== '') {
    const list = all.map((r) => ({ file: r.file, document: r.document, resource: r.what, valid: r.errors.length === 0, skipped: r.skipped, errors: r.errors, warnings: r.warnings }));
    stdout.write(output === 'json' ? `${JSON.stringify(list, null, 2)}\n` : toYaml(list));
  } else if (skipped > 0) {
    stdout.write(`skipped ${skipped} document(s) that are not mesh.io kinds\n`);
  }
  if (invalid > 0) throw new CliError(`${invalid} invalid document(s)`);
  return 0;
}
