/**
 * The fuzz surface of mesh.io config: YAML files through `parseConfigYaml` (with validation, as meshd's
 * `--configDir` source and `meshctl validate` read them) and parsed objects through `validateConfig` and
 * `objectLimitError` (as the CRD source and the validation webhook get them). Inputs are corpus documents
 * with hostile mutations, token soups of YAML syntax, and the hardening issue's attacks (alias bombs, key
 * floods, duplicate keys, deep nesting, document floods) as seeds. Shaped as hack/fuzz's `FuzzSurface`.
 */
import fc from 'fast-check';
import { stringify } from 'yaml';
import { KIND_NAMES } from '../kinds.js';
import { loadCorpus } from '../corpus.js';
import { validateConfig, type ValidationResult } from '../validation/validate-config.js';
import { parseConfigYaml } from '../yaml/parse-config-yaml.js';
import { DEFAULT_YAML_LIMITS, objectLimitError, type YamlLimits } from '../yaml/yaml-limits.js';
import { mutatedJson } from './json-mutation.js';

/** One input: a YAML file (with the default or small limits) or an already-parsed object. */
export type ConfigFuzzInput = { readonly yaml: string; readonly small: boolean } | { readonly object: unknown };

/** Limits small enough that generated inputs reach every one of them. */
export const SMALL_YAML_LIMITS: YamlLimits = Object.freeze({ maxFileBytes: 64 * 1024, maxDocuments: 20, maxKeys: 300, maxAliasCount: 100 });

/**
 * Text in a refusal that means the message is not a clear error but a leaked crash or an unfilled
 * template (`Cannot read properties of undefined`, `[object Object]`, `NaN`).
 */
export const UNCLEAR_MESSAGE = /Cannot read propert|is not a function|is not iterable|Maximum call stack|\[object Object\]|\bNaN\b|\bundefined\b/;

/** A bounded label for a refusal message: quoted text and numbers replaced, at most 80 characters. */
export function refusalReason(message: string): string {
  return message
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/\d+/g, 'N')
    .slice(0, 80);
}

/** Throws when `message` is not a clear one-line error; `where` names the input part. */
export function assertClear(message: unknown, where: string): string {
  if (typeof message !== 'string' || message.trim().length < 6) throw new Error(`property: ${where}: refusal without a message (${JSON.stringify(message)})`);
  if (message.includes('\n')) throw new Error(`property: ${where}: refusal message spans lines: ${JSON.stringify(message.slice(0, 300))}`);
  if (UNCLEAR_MESSAGE.test(message)) throw new Error(`property: ${where}: unclear refusal: ${JSON.stringify(message.slice(0, 300))}`);
  return message;
}

/** The first refusal reason of a validation result, checking that every issue names its problem. */
function validationOutcome(v: ValidationResult, where: string): string {
  for (const i of [...(v.ok ? [] : v.errors), ...v.warnings]) {
    if (typeof i.path !== 'string') throw new Error(`property: ${where}: issue without a path: ${JSON.stringify(i)}`);
    assertClear(i.message, `${where} ${i.path}`);
  }
  if (v.ok) return 'accepted';
  const first = v.errors[0];
  if (!first) throw new Error(`property: ${where}: refused with no error`);
  return `${first.layer}: ${refusalReason(first.message)}`;
}

function billionLaughs(levels: number, width: number): string {
  let s = `a0: &a0 [${Array(width).fill('"lol"').join(',')}]\n`;
  for (let l = 1; l < levels; l++) s += `a${l}: &a${l} [${Array(width).fill(`*a${l - 1}`).join(',')}]\n`;
  return s;
}

const YAML_FRAGMENTS = [
  'a', 'kind', ':', ': ', '- ', '-', '&x ', '*x', '&y ', '*y', '<<: *x\n', '? ', '{', '}', '[', ']', ',', '\n', '\n  ', '  ', '---\n',
  '...\n', '#c', '"q"', "'s'", '|\n  t', '>-\n  t', '!!str ', '!!binary ', '!!map ', '!tag ', '%YAML 1.2\n', '%TAG ! x\n', '\t', 'null', '~',
  '1e309', '0x1F', '.nan', '-.inf', '"\\u0000"', 'é', '\u2028', '\uFEFF', '\ud800', 'metadata:', 'spec:', 'name: x', 'namespace: y',
  'apiVersion: networking.mesh.io/v1\n', 'kind: VirtualService\n', 'hosts: [a]', 'http:', 'route:', 'destination:', 'host: h', 'weight: ',
];

/** The arbitrary of {@link ConfigFuzzInput}, built from the validation corpus. */
export function configFuzzArbitrary(): fc.Arbitrary<ConfigFuzzInput> {
  const corpus = loadCorpus().map((d) => d.object);
  const kinds = KIND_NAMES.map((k) => ({ apiVersion: 'networking.mesh.io/v1', kind: k, metadata: { name: 'x', namespace: 'y' }, spec: {} }));
  const objects = mutatedJson([...corpus, ...kinds, null, [], {}]);
  const small = fc.boolean();
  const soup = fc.array(fc.constantFrom(...YAML_FRAGMENTS), { maxLength: 80 }).map((a) => a.join(''));
  const asYaml = objects.map((o) => stringify(o, { aliasDuplicateObjects: false }));
  const spliced = fc.tuple(asYaml, fc.nat(), fc.nat(8), fc.oneof(soup, fc.string({ unit: 'binary', maxLength: 8 }))).map(([t, at, del, ins]) => {
    const i = at % (t.length + 1);
    return t.slice(0, i) + ins + t.slice(i + del);
  });
  const attacks = fc.oneof(
    fc.tuple(fc.integer({ min: 2, max: 10 }), fc.integer({ min: 2, max: 12 })).map(([l, w]) => billionLaughs(l, w)),
    fc.integer({ min: 1, max: 800 }).map((n) => `spec:\n${Array.from({ length: n }, (_, i) => `  k${i}: ${i}`).join('\n')}\n`),
    fc.tuple(fc.constantFrom('kind', 'metadata', 'spec', 'x'), fc.integer({ min: 2, max: 5 })).map(([k, n]) => `${`${k}: 1\n`.repeat(n)}`),
    fc.integer({ min: 1, max: 3000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
    fc.integer({ min: 1, max: 3000 }).map((n) => `${'{a: '.repeat(n)}1${'}'.repeat(n)}`),
    fc.integer({ min: 1, max: 60 }).map((n) => 'kind: A\n---\n'.repeat(n)),
    fc.integer({ min: 1, max: 2000 }).map((n) => `${'- '.repeat(n)}x`),
  );
  return fc.oneof(
    { weight: 3, arbitrary: fc.record({ yaml: fc.oneof(asYaml, spliced, soup, attacks, fc.string({ unit: 'binary', maxLength: 200 })), small }) },
    { weight: 2, arbitrary: objects.map((object) => ({ object })) },
  );
}

/** Feeds one input; resolves with `accepted` or the first refusal's reason; throws `property: ...` on a violation. */
export function checkConfigInput(input: ConfigFuzzInput): string {
  if ('object' in input) {
    const limit = objectLimitError(input.object);
    if (limit !== undefined) return `limit: ${refusalReason(assertClear(limit, 'object'))}`;
    return validationOutcome(validateConfig(input.object), 'object');
  }
  const limits = input.small ? SMALL_YAML_LIMITS : DEFAULT_YAML_LIMITS;
  const r = parseConfigYaml(input.yaml, limits, { validate: { defaultNamespace: 'fuzz' } });
  if (!r.ok) return `file: ${refusalReason(assertClear(r.error, 'file'))}`;
  let outcome = 'accepted';
  for (const d of r.documents) {
    const where = `document ${d.document}`;
    let o: string;
    if (d.error !== undefined) {
      if (d.value !== undefined) throw new Error(`property: ${where}: refused but kept a value`);
      o = `document: ${refusalReason(assertClear(d.error, where))}`;
    } else if (d.validation) o = validationOutcome(d.validation, where);
    else o = 'accepted';
    if (outcome === 'accepted') outcome = o;
  }
  return outcome;
}

/** The config surface (synchronous, nothing to start or stop). */
export function configFuzzSurface(): {
  readonly name: string;
  readonly arbitrary: fc.Arbitrary<ConfigFuzzInput>;
  check(input: ConfigFuzzInput): Promise<string>;
  healthy(): Promise<void>;
  close(): Promise<void>;
} {
  return {
    name: 'config',
    arbitrary: configFuzzArbitrary(),
    check: (input) => Promise.resolve(checkConfigInput(input)),
    healthy: () => {
      const r = checkConfigInput({ yaml: stringify(loadCorpus().find((d) => d.valid)!.object), small: false });
      if (r !== 'accepted') return Promise.reject(new Error(`property: a valid corpus document was refused after the run: ${r}`));
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
}
