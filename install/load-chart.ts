/**
 * Loads a Helm chart directory as Helm's loader does for what our charts use: `Chart.yaml` (metadata),
 * `values.yaml` (defaults, decoded as sigs.k8s.io/yaml does: numbers are float64), `templates/**`
 * (templates and `_*.tpl` partials) and every other file as `.Files`. Symbolic links are followed
 * (NOTE: the charts link their CRDs and injection templates to crds/ and webhooks/, one source; Helm
 * follows them too, with a warning).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { unmarshalYAML, type GoMap } from '../templates/index.js';

/** Chart.yaml fields our templates may read (Helm's `chart.Metadata`). */
export interface ChartMetadata {
  readonly name: string;
  readonly version: string;
  readonly appVersion?: string;
  readonly description?: string;
  readonly apiVersion: string;
  readonly type?: string;
  readonly keywords?: readonly string[];
  readonly sources?: readonly string[];
  readonly home?: string;
  readonly icon?: string;
  readonly kubeVersion?: string;
  readonly deprecated?: boolean;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** A loaded chart. */
export interface Chart {
  readonly dir: string;
  readonly metadata: ChartMetadata;
  /** Default values (values.yaml). */
  readonly values: GoMap;
  /** Template path relative to the chart (`templates/x.yaml`) -> text, sorted by path. */
  readonly templates: ReadonlyMap<string, string>;
  /** Other files (relative path with `/` separators) -> content. */
  readonly files: ReadonlyMap<string, Buffer>;
}

// Files Helm's loader takes as something other than `.Files`.
const SPECIAL = new Set(['Chart.yaml', 'values.yaml', 'values.schema.json', 'Chart.lock', 'requirements.yaml', 'requirements.lock', '.helmignore']);

function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
}

/**
 * Loads the chart in `dir`.
 * @throws Error naming the file when Chart.yaml or values.yaml is missing or malformed, or the chart has subcharts (not implemented yet)
 */
export function loadChart(dir: string): Chart {
  const chartFile = join(dir, 'Chart.yaml');
  let metadata: ChartMetadata;
  try {
    metadata = parseYaml(readFileSync(chartFile, 'utf8')) as ChartMetadata;
  } catch (e) {
    throw new Error(`chart ${dir}: cannot read ${chartFile}: ${(e as Error).message}`);
  }
  if (!metadata || typeof metadata.name !== 'string' || !metadata.name) throw new Error(`chart ${dir}: ${chartFile}: validation: chart.metadata.name is required`);
  if (typeof metadata.version !== 'string' || !metadata.version) throw new Error(`chart ${dir}: ${chartFile}: validation: chart.metadata.version is required`);
  let values: GoMap = {};
  const valuesFile = join(dir, 'values.yaml');
  let valuesText: string | undefined;
  try {
    valuesText = readFileSync(valuesFile, 'utf8');
  } catch {
    valuesText = undefined;
  }
  if (valuesText !== undefined) {
    let v;
    try {
      v = unmarshalYAML(valuesText);
    } catch (e) {
      throw new Error(`chart ${dir}: cannot parse ${valuesFile}: ${(e as Error).message}`);
    }
    if (v !== null && (typeof v !== 'object' || Array.isArray(v))) throw new Error(`chart ${dir}: ${valuesFile}: values must be a map`);
    values = (v ?? {}) as GoMap;
  }
  const all: string[] = [];
  walk(dir, all);
  const templates = new Map<string, string>();
  const files = new Map<string, Buffer>();
  for (const p of all) {
    const rel = relative(dir, p).split(sep).join('/');
    if (rel.startsWith('charts/')) throw new Error(`chart ${dir}: subcharts (${rel}) are not implemented yet`);
    if (rel.startsWith('templates/')) templates.set(rel, readFileSync(p, 'utf8'));
    else if (!SPECIAL.has(rel)) files.set(rel, readFileSync(p));
  }
  return { dir, metadata, values, templates, files };
}
