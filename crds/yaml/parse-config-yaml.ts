/**
 * The one YAML reader of mesh.io config: every document of a file, with bounded cost whatever the file
 * holds. Used by meshd's `--configDir` source (on a worker thread, see yaml-worker-parser.ts),
 * `meshctl validate` and (through {@link objectLimitError}) the CRD source.
 *
 * NOTE: the `yaml` package's duplicate-key check (`uniqueKeys`, on by default) compares every key with
 * every earlier key of its mapping: 30,000 keys cost seconds, 60,000 minutes. It is off here; duplicate
 * keys are found with one Set per mapping instead (linear). Documents are composed one at a time from
 * the parser's token stream, and a document's keys are counted in the lexer's stream before the parser
 * builds anything from them: past `maxKeys`, the rest of that document is skipped unparsed, so a huge
 * mapping costs a lexer pass, not a syntax tree the size of the file. Alias expansion is bounded by `maxAliasCount`, and an
 * unresolved alias (`a: *nope`) is an error of its document, never an exception.
 *
 * NOTE: plain scalars are read as istiod's `--configDir` (crd.ParseInputs) and kubectl read them
 * (sigs.k8s.io/yaml on go-yaml v2, YAML 1.1 booleans): unquoted `y`, `yes`, `on`, `n`, `no`, `off` (and
 * their capitalised forms) are booleans, so `insecureSkipVerify: yes` is true, and a string field holding
 * an unquoted `yes` is refused by validation (a boolean where a string is expected), as istiod refuses it
 * in `spec` and the API server anywhere. (In `metadata` istiod turns it into "true"/"false"; we refuse it
 * at the field, as the API server does.) The rest is YAML 1.2's core schema, as before.
 */
import { createHash } from 'node:crypto';
import { Composer, isAlias, isMap, isScalar, isSeq, Lexer, LineCounter, Parser, type CST, type Document, type Node, type ScalarTag } from 'yaml';
import { validateConfig, type ValidationResult } from '../validation/validate-config.js';
import { DEFAULT_YAML_LIMITS, type YamlLimits } from './yaml-limits.js';

/** The YAML 1.1 boolean words besides YAML 1.2's true/false forms (go-yaml v2's resolve table). */
const YAML11_TRUE = ['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON'];
const YAML11_FALSE = ['n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF'];

/** A scalar tag resolving the YAML 1.1 boolean words (see the file comment). */
const YAML11_BOOL: ScalarTag = {
  identify: (v) => typeof v === 'boolean',
  default: true,
  tag: 'tag:yaml.org,2002:bool',
  test: new RegExp(`^(?:${[...YAML11_TRUE, ...YAML11_FALSE].join('|')})$`),
  resolve: (str) => YAML11_TRUE.includes(str),
};

/** One document of a file: its value, or why it was refused. */
export interface ParsedDocument {
  /** 1-based position in the file. */
  readonly document: number;
  /** 1-based line of the file where the document's content starts (absent for a refused document). */
  readonly line?: number;
  /** sha256 (hex, 16 chars) of the document's text: tells versions of a document apart. */
  readonly hash: string;
  /** The parsed value when `error` is undefined (null for an empty document); namespaced when validated. */
  readonly value?: unknown;
  /** With {@link ParseOptions.validate}: crds/ `validateConfig` of `value`, for a document that is an object. */
  readonly validation?: ValidationResult;
  /** One line: what is wrong and where (line numbers are 1-based, of the file). */
  readonly error?: string;
  /** For a refused document: its top-level `kind` and `metadata.name`/`namespace`, where readable. */
  readonly kind?: string;
  readonly name?: string;
  readonly namespace?: string;
}

/** What {@link parseConfigYaml} does besides parsing. */
export interface ParseOptions {
  /**
   * Validate each object document with crds/ `validateConfig`, after giving a document whose metadata
   * has no namespace this one (so that a parse on a worker thread also validates there).
   */
  readonly validate?: { readonly defaultNamespace: string };
}

/** A document object with `metadata.namespace` set to `ns` when it has metadata without one. */
export function withDefaultNamespace(raw: unknown, ns: string): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const r = raw as { metadata?: Record<string, unknown> };
  if (!r.metadata || typeof r.metadata !== 'object' || r.metadata['namespace'] !== undefined) return raw;
  return { ...r, metadata: { ...r.metadata, namespace: ns } };
}

/** The outcome of {@link parseConfigYaml}: the documents, or why the whole file was refused. */
export type ParsedYaml = { readonly ok: true; readonly documents: readonly ParsedDocument[] } | { readonly ok: false; readonly error: string };

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** The first duplicate or non-scalar key of any mapping in `root`, as a message; one Set per mapping. */
function keyProblem(root: Node | null, line: (offset: number) => number): string | undefined {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const n = stack.pop();
    if (isMap(n)) {
      const seen = new Set<string>();
      for (const pair of n.items) {
        const k = pair.key;
        if (!isScalar(k)) {
          const at = (k as Node | null)?.range?.[0] ?? n.range?.[0] ?? 0;
          return `mapping keys must be plain values, not ${isAlias(k) ? 'aliases' : 'collections'} (line ${line(at)})`;
        }
        const name = String(k.value);
        if (seen.has(name)) return `duplicate key "${name.length > 64 ? `${name.slice(0, 64)}...` : name}" (line ${line(k.range?.[0] ?? 0)})`;
        seen.add(name);
        stack.push(pair.value);
      }
    } else if (isSeq(n)) {
      for (const item of n.items) stack.push(item);
    }
  }
  return undefined;
}

/** `kind`, `metadata.name` and `metadata.namespace` of a document, where they are plain strings. */
function identity(doc: Document.Parsed): Pick<ParsedDocument, 'kind' | 'name' | 'namespace'> {
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length <= 253 ? v : undefined);
  const out: { kind?: string; name?: string; namespace?: string } = {};
  try {
    const kind = str(doc.get('kind'));
    const name = str(doc.getIn(['metadata', 'name']));
    const namespace = str(doc.getIn(['metadata', 'namespace']));
    if (kind !== undefined) out.kind = kind;
    if (name !== undefined) out.name = name;
    if (namespace !== undefined) out.namespace = namespace;
  } catch {
    // NOTE: contents that are not a mapping have no identity.
  }
  return out;
}

/**
 * `msg`, or for the engine's stack overflow a message that says what in the input caused it.
 * NOTE: found by fuzzing (crds/testing/config-fuzz-surface.ts): the composer reports a stack overflow of
 * a deeply nested flow collection as a document error, "Maximum call stack size exceeded", which names
 * neither the problem in the file nor what to do.
 */
function stackMessage(msg: string): string {
  return /Maximum call stack/.test(msg) ? 'nested too deeply (collections inside collections beyond what the parser can follow); flatten the document' : msg;
}

function describeError(e: unknown, limits: YamlLimits): string {
  const msg = e instanceof Error ? e.message.split('\n')[0]! : String(e);
  if (/Unresolved alias/.test(msg)) return `YAML: ${msg}`;
  if (/Excessive alias count/.test(msg)) return `YAML: aliases expand to too many nodes (limit maxAliasCount ${limits.maxAliasCount})`;
  if (e instanceof RangeError) return `YAML: ${stackMessage(msg)}`;
  return `YAML: ${msg}`;
}

/**
 * Parses every document of one file's bytes or text within `limits` (defaults {@link DEFAULT_YAML_LIMITS}),
 * and with `opts.validate` validates each.
 * A document that is not valid YAML, has a duplicate or non-scalar key, too many keys, an unresolved
 * alias or too many alias expansions is refused alone (the others are kept); a file over `maxFileBytes`
 * or `maxDocuments` is refused as a whole. Never throws.
 */
export function parseConfigYaml(input: string | Uint8Array, limits: YamlLimits = DEFAULT_YAML_LIMITS, opts: ParseOptions = {}): ParsedYaml {
  const bytes = typeof input === 'string' ? Buffer.byteLength(input) : input.byteLength;
  if (bytes > limits.maxFileBytes) return { ok: false, error: `file is ${bytes} bytes, more than ${limits.maxFileBytes} (limit maxFileBytes)` };
  const text = typeof input === 'string' ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString('utf8');
  try {
    const parsed = parseText(text, limits);
    if (!parsed.ok || !opts.validate) return parsed;
    const ns = opts.validate.defaultNamespace;
    return {
      ok: true,
      documents: parsed.documents.map((d) => {
        if (d.error !== undefined || d.value === null || d.value === undefined) return d;
        const value = withDefaultNamespace(d.value, ns);
        return { ...d, value, validation: validateConfig(value) };
      }),
    };
  } catch (e) {
    // NOTE: the parser's own stack (a document nested hundreds of thousands deep) or any other surprise
    // refuses the file; it never escapes to the caller.
    return { ok: false, error: describeError(e, limits) };
  }
}

function parseText(text: string, limits: YamlLimits): ParsedYaml {
  const lines = new LineCounter();
  const line = (offset: number): number => lines.linePos(offset).line;
  const parser = new Parser(lines.addNewLine);
  // NOTE: Parser.parse() records the first line itself; fed lexeme by lexeme, it does not.
  lines.addNewLine(0);
  // NOTE: logLevel 'silent': the package would otherwise print process warnings (stringified keys) to stderr.
  const composer = new Composer({ uniqueKeys: false, logLevel: 'silent', customTags: [YAML11_BOOL] });
  const offsets: number[] = [];
  const results: ParsedDocument[] = [];
  /** Ordinals (0-based) of the documents handed to the composer, in order. */
  const composed: number[] = [];
  let skipping = false;
  let tooMany = false;

  const take = (doc: Document.Parsed): void => {
    const i = composed.shift()!;
    const base = { document: i + 1, hash: '' };
    if (doc.errors.length > 0) {
      const e = doc.errors[0]!;
      results[i] = { ...base, error: `YAML: ${stackMessage(e.message.split('\n')[0]!)} (line ${line(e.pos[0])})`, ...identity(doc) };
      return;
    }
    const bad = keyProblem(doc.contents, line);
    if (bad !== undefined) {
      results[i] = { ...base, error: `YAML: ${bad}`, ...identity(doc) };
      return;
    }
    try {
      const start = doc.contents?.range?.[0];
      const at = start === undefined ? {} : { line: line(start) };
      results[i] = { ...base, ...at, value: doc.toJS({ maxAliasCount: limits.maxAliasCount }) as unknown };
    } catch (e) {
      results[i] = { ...base, error: describeError(e, limits), ...identity(doc) };
    }
  };

  /** Keys seen in the document being lexed; past the limit its remaining lexemes are not parsed. */
  let keys = 0;
  let overLimit = false;
  /** The next document token the parser emits is the one cut short. */
  let cutShort = false;
  const onToken = (token: CST.Token): boolean => {
    if (token.type === 'document') {
      const i = offsets.length;
      if (i >= limits.maxDocuments) {
        tooMany = true;
        return false;
      }
      offsets.push(token.offset);
      if (cutShort) {
        cutShort = false;
        results[i] = { document: i + 1, hash: '', error: `document has more than ${limits.maxKeys} mapping keys (limit maxKeys)` };
        skipping = true;
        return true;
      }
      skipping = false;
      composed.push(i);
    } else if (skipping && token.type === 'doc-end') {
      return true;
    }
    for (const doc of composer.next(token)) take(doc);
    return true;
  };
  lex: for (const lexeme of new Lexer().lex(text)) {
    if (lexeme === '---' || lexeme === '...' || lexeme === '\u0002') {
      keys = 0;
      overLimit = false;
    } else if (overLimit) {
      continue;
    } else if (lexeme === ':' && ++keys > limits.maxKeys) {
      overLimit = true;
      cutShort = true;
      continue;
    }
    for (const token of parser.next(lexeme)) if (!onToken(token)) break lex;
  }
  if (!tooMany) for (const token of parser.end()) if (!onToken(token)) break;
  if (tooMany) return { ok: false, error: `file has more than ${limits.maxDocuments} documents (limit maxDocuments)` };
  for (const doc of composer.end()) take(doc);
  const documents = results.map((r, i) => ({ ...r, hash: shortHash(text.slice(offsets[i], offsets[i + 1] ?? text.length)) }));
  return { ok: true, documents };
}
