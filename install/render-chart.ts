/**
 * Renders a chart as `helm template` does (Helm v3 engine semantics), with the Go-template engine of
 * templates/: one template set holding every template of the chart (parsed in Helm's order, so `define`s
 * in `_helpers.tpl` are shared), `missingkey=zero` with `<no value>` erased, partials (`_*`) not rendered,
 * each output split into YAML documents, empty ones dropped, documents sorted by Helm's install order
 * (stable; unknown kinds last, by kind), printed as `---\n# Source: <chart>/templates/<file>\n<doc>`.
 *
 * `.Capabilities` is fixed (no cluster is asked): Kubernetes {@link DEFAULT_KUBE_VERSION}, Helm
 * {@link HELM_VERSION}, API versions `v1` only (Helm's default set). `lookup` returns an empty map, as
 * under `helm template`.
 */
import { parseDocument } from 'yaml';
import { GoFunction, GoInt, GoStruct, helmFunctions, newTemplateSet, sprigFunctions, type GoMap } from '../templates/index.js';
import { coalesceValues } from './coalesce-values.js';
import type { Chart, ChartMetadata } from './load-chart.js';

/** The Kubernetes version `.Capabilities.KubeVersion` reports (pass `--kube-version` of this to helm to compare). */
export const DEFAULT_KUBE_VERSION = 'v1.34.0';
/** The Helm version `.Capabilities.HelmVersion` reports (hack/helm/build.sh builds this one). */
export const HELM_VERSION = 'v3.19.0';

/** Helm's `.Release` for a render. */
export interface ReleaseOptions {
  readonly name: string;
  readonly namespace: string;
  /** Default false (an install); `.Release.IsInstall` is its negation. */
  readonly isUpgrade?: boolean;
  /** Default 1. */
  readonly revision?: number;
}

/** One rendered document. */
export interface RenderedManifest {
  /** `<chart>/templates/<file>`. */
  readonly source: string;
  /** The document's text, trimmed. */
  readonly content: string;
  /** Its `kind` ('' when it has none). */
  readonly kind: string;
}

/** The result of {@link renderChart}. */
export interface RenderedChart {
  readonly manifests: readonly RenderedManifest[];
  /** The whole output, byte-for-byte what `helm template` prints for the chart (without hooks or NOTES). */
  readonly text: string;
  /** The coalesced values the templates saw. */
  readonly values: GoMap;
  /** Helm's warnings (value coalescing). */
  readonly warnings: readonly string[];
}

// NOTE: helm.sh/helm/v3 pkg/releaseutil InstallOrder (v3.19): webhook configurations are not in it.
const INSTALL_ORDER = [
  'PriorityClass', 'Namespace', 'NetworkPolicy', 'ResourceQuota', 'LimitRange', 'PodSecurityPolicy', 'PodDisruptionBudget', 'ServiceAccount',
  'Secret', 'SecretList', 'ConfigMap', 'StorageClass', 'PersistentVolume', 'PersistentVolumeClaim', 'CustomResourceDefinition', 'ClusterRole',
  'ClusterRoleList', 'ClusterRoleBinding', 'ClusterRoleBindingList', 'Role', 'RoleList', 'RoleBinding', 'RoleBindingList', 'Service', 'DaemonSet',
  'Pod', 'ReplicationController', 'ReplicaSet', 'Deployment', 'HorizontalPodAutoscaler', 'StatefulSet', 'Job', 'CronJob', 'IngressClass', 'Ingress',
  'APIService',
];
const ORDER = new Map(INSTALL_ORDER.map((k, i) => [k, i]));

/** Helm's sort of template names: fewer `/` first is reversed (deeper first), then names descending. */
function helmTemplateOrder(names: string[]): string[] {
  const less = (a: string, b: string): boolean => {
    const ca = a.split('/').length;
    const cb = b.split('/').length;
    return ca === cb ? a < b : ca < cb;
  };
  return [...names].sort((a, b) => (less(b, a) ? -1 : less(a, b) ? 1 : 0));
}

function notImplemented(name: string): GoFunction {
  return new GoFunction(['interface {}'], () => {
    throw new Error(`not implemented yet: ${name}`);
  }, 'interface {}');
}

function filesObject(chart: Chart): GoStruct {
  const get = (name: string): string => chart.files.get(name)?.toString('utf8') ?? '';
  return new GoStruct('chart.Files', {}, {
    Get: new GoFunction(['string'], (n) => get(n as string)),
    GetBytes: notImplemented('.Files.GetBytes'),
    Glob: notImplemented('.Files.Glob'),
    AsConfig: notImplemented('.Files.AsConfig'),
    AsSecrets: notImplemented('.Files.AsSecrets'),
    Lines: new GoFunction(['string'], (n) => {
      const s = get(n as string);
      return s === '' ? [] : s.split('\n');
    }),
  });
}

function chartObject(m: ChartMetadata): GoStruct {
  const str = (v: string | undefined): string => v ?? '';
  return new GoStruct('*chart.Metadata', {
    Name: m.name,
    Home: str(m.home),
    Sources: m.sources ? [...m.sources] : null,
    Version: m.version,
    Description: str(m.description),
    Keywords: m.keywords ? [...m.keywords] : null,
    Maintainers: null,
    Icon: str(m.icon),
    APIVersion: m.apiVersion,
    Condition: '',
    Tags: '',
    AppVersion: str(m.appVersion),
    Deprecated: m.deprecated ?? false,
    Annotations: m.annotations ? { ...m.annotations } : null,
    KubeVersion: str(m.kubeVersion),
    Dependencies: null,
    Type: str(m.type),
  });
}

function capabilitiesObject(): GoStruct {
  const [major, minor] = DEFAULT_KUBE_VERSION.slice(1).split('.');
  return new GoStruct('*chartutil.Capabilities', {
    KubeVersion: new GoStruct('chartutil.KubeVersion', { Version: DEFAULT_KUBE_VERSION, Major: major, Minor: minor }, {
      String: new GoFunction([], () => DEFAULT_KUBE_VERSION),
    }),
    APIVersions: new GoStruct('chartutil.VersionSet', {}, { Has: new GoFunction(['string'], (v) => v === 'v1') }),
    HelmVersion: { version: HELM_VERSION, git_commit: '', git_tree_state: '', go_version: '' },
  });
}

/** Helm's SplitManifests: documents separated by `---` lines, each trimmed, empty ones dropped. */
function splitManifests(text: string): string[] {
  return text.trim().split(/(?:^|\s*\n)---\s*/).filter((d) => d !== '').map((d) => d.trim());
}

function kindOf(source: string, doc: string): string {
  const parsed = parseDocument(doc, { version: '1.1' });
  if (parsed.errors.length > 0) throw new Error(`YAML parse error on ${source}: ${parsed.errors[0].message}`);
  const v = parsed.toJS() as unknown;
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const k = (v as Record<string, unknown>)['kind'];
    return typeof k === 'string' ? k : '';
  }
  return '';
}

function lessByKind(a: string, b: string): boolean {
  const ia = ORDER.get(a);
  const ib = ORDER.get(b);
  if (ia === undefined && ib === undefined) return a < b;
  if (ia === undefined) return false;
  if (ib === undefined) return true;
  return ia < ib;
}

/**
 * Renders `chart` with `values` (user values, already merged in precedence order) for `release`.
 * @throws Error with Helm's message shape (`template: <chart>/templates/<file>:LINE:COL: ...`) on a parse or
 *   execution failure, or `YAML parse error on <source>: ...` when a rendered document is not YAML
 */
export function renderChart(chart: Chart, values: GoMap, release: ReleaseOptions): RenderedChart {
  const warnings: string[] = [];
  const vals = coalesceValues(chart.values, values, (w) => warnings.push(w));
  const set = newTemplateSet({ sprig: false, missingKey: 'zero' });
  set.addFuncs(sprigFunctions());
  set.addFuncs(helmFunctions(set));
  set.addFuncs({
    lookup: new GoFunction(['string', 'string', 'string', 'string'], () => ({})),
    toToml: notImplemented('toToml'),
  });
  const name = chart.metadata.name;
  const paths = helmTemplateOrder([...chart.templates.keys()].map((p) => `${name}/${p}`));
  for (const p of paths) set.parse(p, chart.templates.get(p.slice(name.length + 1)) ?? '');
  const top: GoMap = {
    Chart: chartObject(chart.metadata),
    Capabilities: capabilitiesObject(),
    Release: {
      Name: release.name,
      Namespace: release.namespace,
      IsUpgrade: release.isUpgrade ?? false,
      IsInstall: !(release.isUpgrade ?? false),
      Revision: new GoInt(release.revision ?? 1),
      Service: 'Helm',
    },
    Values: vals,
    Files: filesObject(chart),
    Subcharts: {},
  };
  const rendered = new Map<string, string>();
  for (const p of paths) {
    if (p.split('/').pop()?.startsWith('_')) continue;
    const data: GoMap = { ...top, Template: { Name: p, BasePath: `${name}/templates` } };
    rendered.set(p, set.execute(p, data).replaceAll('<no value>', ''));
  }
  const manifests: RenderedManifest[] = [];
  for (const p of [...rendered.keys()].sort()) {
    if (p.endsWith('NOTES.txt')) continue;
    const out = rendered.get(p) ?? '';
    if (out.trim() === '') continue;
    for (const doc of splitManifests(out)) manifests.push({ source: p, content: doc, kind: kindOf(p, doc) });
  }
  // NOTE: a stable sort, as Helm's sort.SliceStable.
  const sorted = manifests.map((m, i) => ({ m, i })).sort((x, y) => (lessByKind(x.m.kind, y.m.kind) ? -1 : lessByKind(y.m.kind, x.m.kind) ? 1 : x.i - y.i)).map((x) => x.m);
  const body = sorted.map((m) => `---\n# Source: ${m.source}\n${m.content}\n`).join('');
  return { manifests: sorted, text: `${body.trim()}\n`, values: vals, warnings };
}
