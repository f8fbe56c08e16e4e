/**
 * `meshctl manifest generate`: renders the charts (base, then meshd) with the install/ renderer for the
 * `default` profile, from MeshOperator files (`-f`), `--set` overrides and `--revision`, as
 * `istioctl manifest generate` does. Other profiles, the gateway component and the cluster-aware flags
 * fail with "not implemented yet".
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chartDir, loadChart, mergeValues, renderChart } from '../../install/index.js';
import { unmarshalYAML, type GoMap } from '../../templates/index.js';
import { CliError, notImplemented, type RunContext } from '../framework/index.js';

/** The components this command renders, in Helm's install order (base first). */
const COMPONENTS = ['base', 'meshd'] as const;
type Component = (typeof COMPONENTS)[number];
const RELEASE: Record<Component, string> = { base: 'base', meshd: 'meshd' };
// NOTE: Istio's component names (pilot is meshd here); gateways are not built yet.
const COMPONENT_ALIASES: Record<string, Component | 'gateway'> = {
  base: 'base',
  pilot: 'meshd',
  meshd: 'meshd',
  gateway: 'gateway',
  ingressgateways: 'gateway',
  egressgateways: 'gateway',
};
const SPEC_FIELDS = new Set(['profile', 'revision', 'values', 'meshConfig', 'hub', 'tag', 'namespace']);

const isMap = (v: unknown): v is GoMap => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Splits a `--set` argument into its `key=value` pairs (commas separate pairs, `\,` escapes one). */
function splitPairs(arg: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < arg.length; i++) {
    const c = arg[i] as string;
    if (c === '\\' && i + 1 < arg.length) {
      cur += c + (arg[i + 1] as string);
      i++;
    } else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

type PathPart = string | number;

/** Parses a `--set` key (`a.b`, `a[0].b`, `a\.b`) into its path. */
function parseKey(key: string, arg: string): PathPart[] {
  const parts: PathPart[] = [];
  let cur = '';
  let i = 0;
  const fail = (why: string): never => {
    throw new CliError(`--set ${JSON.stringify(arg)}: ${why}`);
  };
  const push = (): void => {
    if (cur === '') fail(`empty key segment in "${key}"`);
    parts.push(cur);
    cur = '';
  };
  while (i < key.length) {
    const c = key[i] as string;
    if (c === '\\' && i + 1 < key.length) {
      cur += key[i + 1];
      i += 2;
    } else if (c === '.') {
      if (cur !== '') push();
      else if (parts.length === 0 || typeof parts[parts.length - 1] !== 'number') fail(`empty key segment in "${key}"`);
      i++;
    } else if (c === '[') {
      if (cur !== '') push();
      const end = key.indexOf(']', i);
      const idx = end < 0 ? '' : key.slice(i + 1, end);
      if (!/^\d+$/.test(idx)) fail(`list index in "${key}" must be a non-negative integer in [ ]`);
      parts.push(Number(idx));
      i = end + 1;
      if (i < key.length && key[i] !== '.' && key[i] !== '[') fail(`expected "." or "[" after "]" in "${key}"`);
    } else if (c === '{' || c === '}' || c === ']') {
      fail(`unsupported character "${c}" in key "${key}"`);
    } else {
      cur += c;
      i++;
    }
  }
  if (cur !== '') parts.push(cur);
  else if (parts.length === 0 || typeof parts[parts.length - 1] !== 'number') fail(`empty key segment in "${key}"`);
  return parts;
}

/** Helm's typed value for `--set`: true/false, null, integers (no leading zero), else a string. */
function typedValue(raw: string, arg: string): unknown {
  if (raw.startsWith('{')) throw new CliError(`--set ${JSON.stringify(arg)}: list values ({a,b}) are not supported; use key[0]=a,key[1]=b`);
  const v = raw.replace(/\\(.)/g, '$1');
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (v === 'null') return null;
  if (/^-?(0|[1-9]\d*)$/.test(v) && Number.isSafeInteger(Number(v))) return Number(v);
  return v;
}

function setPath(root: GoMap, path: PathPart[], value: unknown, arg: string): void {
  let node: unknown = root;
  for (let i = 0; i < path.length; i++) {
    const part = path[i] as PathPart;
    const last = i === path.length - 1;
    const nextIsIndex = typeof path[i + 1] === 'number';
    if (typeof part === 'number') {
      if (!Array.isArray(node)) throw new CliError(`--set ${JSON.stringify(arg)}: "${path.slice(0, i).join('.')}" is not a list`);
      while (node.length <= part) node.push(null);
      if (last) node[part] = value;
      else if (nextIsIndex ? !Array.isArray(node[part]) : !isMap(node[part])) node[part] = nextIsIndex ? [] : {};
      node = node[part];
    } else {
      if (!isMap(node)) throw new CliError(`--set ${JSON.stringify(arg)}: "${path.slice(0, i).join('.')}" is not a map`);
      if (last) node[part] = value as GoMap[string];
      else if (nextIsIndex ? !Array.isArray(node[part]) : !isMap(node[part])) node[part] = nextIsIndex ? [] : {};
      node = node[part];
    }
  }
}

/** Applies `--set` arguments (Helm's syntax for dotted paths, `a[0]`, scalars) to a MeshOperator spec. */
export function applySets(spec: GoMap, sets: readonly string[]): GoMap {
  for (const arg of sets) {
    for (const pair of splitPairs(arg)) {
      const eq = pair.indexOf('=');
      if (eq <= 0) throw new CliError(`--set ${JSON.stringify(arg)}: expected key=value, got ${JSON.stringify(pair)}`);
      setPath(spec, parseKey(pair.slice(0, eq), arg), typedValue(pair.slice(eq + 1), arg), arg);
    }
  }
  return spec;
}

/** Reads a MeshOperator file and returns its `spec` (or fails naming the file). */
function readOperatorSpec(file: string): GoMap {
  let doc: unknown;
  try {
    doc = unmarshalYAML(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new CliError(`-f ${file}: ${(e as Error).message}`);
  }
  if (doc === null) return {};
  if (!isMap(doc)) throw new CliError(`-f ${file}: expected a MeshOperator object`);
  if (doc['kind'] !== undefined && doc['kind'] !== 'MeshOperator') throw new CliError(`-f ${file}: kind ${String(doc['kind'])} is not MeshOperator`);
  const spec = doc['spec'] ?? {};
  if (!isMap(spec)) throw new CliError(`-f ${file}: spec is not a map`);
  return spec;
}

/** The chart values a MeshOperator spec means (`spec.values` with `spec.meshConfig`, `revision`, `hub`, `tag`). */
export function chartValues(spec: GoMap, origin: string): GoMap {
  for (const k of Object.keys(spec)) {
    if (!SPEC_FIELDS.has(k)) {
      if (k === 'components') notImplemented(`manifest generate: MeshOperator field spec.components (${origin})`);
      throw new CliError(`${origin}: cannot map MeshOperator field spec.${k}`);
    }
  }
  const profile = spec['profile'] ?? 'default';
  if (profile !== 'default') notImplemented(`manifest generate: profile ${String(profile)}`);
  if (spec['namespace'] !== undefined && spec['namespace'] !== 'mesh-system') notImplemented(`manifest generate: spec.namespace other than mesh-system`);
  const values = spec['values'] ?? {};
  if (!isMap(values)) throw new CliError(`${origin}: spec.values is not a map`);
  let out: GoMap = mergeValues({}, values);
  const global: GoMap = {};
  for (const k of ['hub', 'tag'] as const) if (spec[k] !== undefined) global[k] = spec[k];
  if (Object.keys(global).length > 0) out = mergeValues(out, { global });
  if (spec['meshConfig'] !== undefined) {
    if (!isMap(spec['meshConfig'])) throw new CliError(`${origin}: spec.meshConfig is not a map`);
    out = mergeValues(out, { meshConfig: spec['meshConfig'] });
  }
  if (spec['revision'] !== undefined && spec['revision'] !== null) out = mergeValues(out, { revision: String(spec['revision']) });
  return out;
}

function selectedComponents(names: readonly string[]): Component[] {
  if (names.length === 0) return [...COMPONENTS];
  const want = new Set<Component>();
  for (const n of names) {
    const c = COMPONENT_ALIASES[n.toLowerCase()];
    if (c === undefined) throw new CliError(`--component ${n}: unknown component (one of base, pilot (meshd), ingressGateways)`);
    if (c === 'gateway') notImplemented(`manifest generate --component ${n}`);
    want.add(c);
  }
  return COMPONENTS.filter((c) => want.has(c));
}

/** Renders the selected components; returns each component's `helm template` text. */
export function generateManifests(spec: GoMap, components: readonly Component[], origin = 'MeshOperator'): Map<Component, string> {
  const values = chartValues(spec, origin);
  const out = new Map<Component, string>();
  for (const c of components) out.set(c, renderChart(loadChart(chartDir(c)), values, { name: RELEASE[c], namespace: 'mesh-system' }).text);
  return out;
}

/** The `run` of `meshctl manifest generate`. */
export function runManifestGenerate(ctx: RunContext): number {
  const { flags, io } = ctx;
  if (flags.bool('cluster-specific')) notImplemented('manifest generate --cluster-specific');
  if (flags.bool('force')) notImplemented('manifest generate --force');
  if (flags.string('charts') !== '' || flags.string('manifests') !== '') notImplemented('manifest generate --manifests/--charts');
  const components = selectedComponents(flags.strings('component'));
  let spec: GoMap = {};
  for (const f of flags.strings('filename')) spec = mergeValues(spec, readOperatorSpec(f));
  applySets(spec, flags.strings('set'));
  const revision = flags.string('revision');
  if (revision !== '') spec['revision'] = revision;
  const rendered = generateManifests(spec, components, flags.strings('filename').length > 0 ? `-f ${flags.strings('filename').join(',')}` : '--set');
  const dir = flags.string('output');
  if (dir === '') {
    for (const text of rendered.values()) io.stdout.write(text);
    return 0;
  }
  mkdirSync(dir, { recursive: true });
  for (const [c, text] of rendered) writeFileSync(join(dir, `${c}.yaml`), text);
  return 0;
}
