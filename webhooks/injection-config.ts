/**
 * The injector's inputs, as Istio has them (renamed): the `config` key of ConfigMap `mesh-sidecar-injector`
 * (policy, templates, defaultTemplates, aliases, never/always selectors, injected annotations), its
 * `values` key (Helm-style values, JSON), and the mesh config (ConfigMap `mesh`, key `mesh`).
 */
import { LabelSelectorError, parseLabelSelectors, type LabelSelector } from '../core/index.js';
import { parseConfigYaml } from '../crds/index.js';
import { BUILTIN_TEMPLATES } from './builtin-templates.js';

export type { LabelSelector } from '../core/index.js';

/** `enabled`: inject unless a pod opts out; `disabled`: only pods that opt in. */
export type InjectionPolicy = 'enabled' | 'disabled';

/** The `config` key of `mesh-sidecar-injector`. */
export interface InjectionConfig {
  readonly policy: InjectionPolicy;
  /** Template name -> Go template text. The built-ins (`sidecar`, `gateway`, `grpc-simple`, `grpc-agent`) are there unless replaced. */
  readonly templates: Readonly<Record<string, string>>;
  /** Templates applied when a pod names none (`inject.mesh.io/templates`); default `["sidecar"]`. */
  readonly defaultTemplates: readonly string[];
  /** A name that stands for several templates (`grpc` -> `["grpc-agent"]`). */
  readonly aliases: Readonly<Record<string, readonly string[]>>;
  /** Pods matching one of these are never injected unless they ask (`sidecar.mesh.io/inject`). */
  readonly neverInjectSelector: readonly LabelSelector[];
  /** Pods matching one of these are injected even under policy `disabled`, unless they opt out. */
  readonly alwaysInjectSelector: readonly LabelSelector[];
  /** Annotations added to every injected pod. */
  readonly injectedAnnotations: Readonly<Record<string, string>>;
}

/** Thrown for injector inputs that do not parse; names the source and the field. */
export class InjectionConfigError extends Error {
  override readonly name = 'InjectionConfigError';
}

/**
 * Parses one YAML (or JSON) document from a user-supplied source with crds/'s bounded reader (limits on
 * size, documents, keys and aliases; an unresolved alias is an error, never an exception).
 * @throws InjectionConfigError naming `where`
 */
export function parseYamlDocument(text: string, where: string): unknown {
  const docs = parseYamlDocumentsWithNulls(text, where);
  if (docs.length > 1) throw new InjectionConfigError(`${where}: want one YAML document, found ${docs.length}`);
  return docs[0] ?? null;
}

/**
 * Parses a stream of YAML documents (empty documents dropped) with crds/'s bounded reader. NOTE: with
 * {@link parseYamlDocument}, the only YAML reads of user input in webhooks/.
 * @throws InjectionConfigError naming `where` and the document
 */
export function parseYamlDocuments(text: string, where: string): unknown[] {
  return parseYamlDocumentsWithNulls(text, where).filter((v) => v !== null && v !== undefined);
}

function parseYamlDocumentsWithNulls(text: string, where: string): unknown[] {
  const parsed = parseConfigYaml(text);
  if (!parsed.ok) throw new InjectionConfigError(`${where}: not valid YAML: ${parsed.error}`);
  return parsed.documents.map((d) => {
    if (d.error !== undefined) throw new InjectionConfigError(`${where}${parsed.documents.length > 1 ? ` document ${d.document}` : ''}: not valid YAML: ${d.error}`);
    return d.value;
  });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stringMap(v: unknown, where: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isRecord(v)) throw new InjectionConfigError(`${where}: must be a map of strings`);
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== 'string') throw new InjectionConfigError(`${where}.${k}: must be a string`);
    out[k] = x;
  }
  return out;
}

function selectors(v: unknown, where: string): LabelSelector[] {
  try {
    return parseLabelSelectors(v, where);
  } catch (e) {
    throw e instanceof LabelSelectorError ? new InjectionConfigError(e.message) : e;
  }
}

/** The configuration with no ConfigMap: policy enabled, the built-in templates, `sidecar` by default. */
export function defaultInjectionConfig(): InjectionConfig {
  return {
    policy: 'enabled',
    templates: { ...BUILTIN_TEMPLATES },
    defaultTemplates: ['sidecar'],
    aliases: {},
    neverInjectSelector: [],
    alwaysInjectSelector: [],
    injectedAnnotations: {},
  };
}

/**
 * Parses the `config` key of `mesh-sidecar-injector` (YAML). The legacy single `template` key becomes
 * template `sidecar`. Templates of the built-in names replace the built-ins.
 * @throws InjectionConfigError naming `where` and the field
 */
export function parseInjectionConfig(text: string, where = 'mesh-sidecar-injector config'): InjectionConfig {
  const raw = parseYamlDocument(text, where) ?? {};
  if (!isRecord(raw)) throw new InjectionConfigError(`${where}: must be a map (policy, templates, defaultTemplates, ...)`);
  const known = ['policy', 'template', 'templates', 'defaultTemplates', 'aliases', 'neverInjectSelector', 'alwaysInjectSelector', 'injectedAnnotations'];
  const unknown = Object.keys(raw).filter((k) => !known.includes(k));
  if (unknown.length > 0) throw new InjectionConfigError(`${where}: unknown field ${unknown[0]} (known: ${known.join(', ')})`);
  const policy = raw['policy'] ?? 'enabled';
  if (policy !== 'enabled' && policy !== 'disabled') throw new InjectionConfigError(`${where}.policy: ${JSON.stringify(policy)} is not "enabled" or "disabled"`);
  const templates: Record<string, string> = { ...BUILTIN_TEMPLATES, ...stringMap(raw['templates'], `${where}.templates`) };
  if (typeof raw['template'] === 'string' && raw['template'] !== '') templates['sidecar'] = raw['template'];
  const defaults = raw['defaultTemplates'] ?? ['sidecar'];
  if (!Array.isArray(defaults) || defaults.some((d) => typeof d !== 'string')) throw new InjectionConfigError(`${where}.defaultTemplates: must be a list of template names`);
  const aliases: Record<string, string[]> = {};
  if (raw['aliases'] !== undefined && raw['aliases'] !== null) {
    if (!isRecord(raw['aliases'])) throw new InjectionConfigError(`${where}.aliases: must map a name to a list of template names`);
    for (const [k, v] of Object.entries(raw['aliases'])) {
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new InjectionConfigError(`${where}.aliases.${k}: must be a list of template names`);
      aliases[k] = v as string[];
    }
  }
  return {
    policy,
    templates,
    defaultTemplates: defaults as string[],
    aliases,
    neverInjectSelector: selectors(raw['neverInjectSelector'], `${where}.neverInjectSelector`),
    alwaysInjectSelector: selectors(raw['alwaysInjectSelector'], `${where}.alwaysInjectSelector`),
    injectedAnnotations: stringMap(raw['injectedAnnotations'], `${where}.injectedAnnotations`),
  };
}

/** Values the built-in templates read, as the mesh chart's defaults would give them. */
export function defaultInjectionValues(): Record<string, unknown> {
  return {
    revision: '',
    global: {
      hub: 'docker.io/mesh',
      tag: 'latest',
      imagePullPolicy: '',
      imagePullSecrets: [],
      meshNamespace: 'mesh-system',
      meshID: '',
      network: '',
      caAddress: '',
      pilotCertProvider: 'meshd',
      logAsJson: false,
      logging: { level: 'default:info' },
      multiCluster: { clusterName: '' },
      sds: { token: { aud: 'mesh-ca' } },
      proxy: {
        image: 'proxyv2',
        clusterDomain: 'cluster.local',
        logLevel: 'warning',
        componentLogLevel: 'misc:error',
        statusPort: 15020,
        includeIPRanges: '*',
        excludeIPRanges: '',
        includeOutboundPorts: '',
        excludeOutboundPorts: '',
        excludeInboundPorts: '',
        readinessInitialDelaySeconds: 0,
        readinessPeriodSeconds: 15,
        readinessFailureThreshold: 4,
        privileged: false,
        capNetBindService: false,
        holdApplicationUntilProxyStarts: false,
        resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '2000m', memory: '1024Mi' } },
      },
    },
    sidecarInjectorWebhook: { rewriteAppHTTPProbe: true },
  };
}

/** Deep merge of plain objects: `over` wins; lists and scalars replace. */
export function mergeValues(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = isRecord(b) && isRecord(v) ? mergeValues(b, v) : v;
  }
  return out;
}

/**
 * Parses the `values` key of `mesh-sidecar-injector` (JSON or YAML) over {@link defaultInjectionValues}.
 * @throws InjectionConfigError naming `where`
 */
export function parseInjectionValues(text: string, where = 'mesh-sidecar-injector values'): Record<string, unknown> {
  const raw = parseYamlDocument(text, where) ?? {};
  if (!isRecord(raw)) throw new InjectionConfigError(`${where}: must be a map`);
  return mergeValues(defaultInjectionValues(), raw);
}

/** The parts of the mesh config the injector reads. */
export interface InjectorMeshConfig {
  readonly trustDomain: string;
  readonly enablePrometheusMerge: boolean;
  /** `defaultConfig` (ProxyConfig, JSON field names). */
  readonly defaultConfig: Readonly<Record<string, unknown>>;
}

/**
 * Parses the mesh config (the `mesh` key of ConfigMap `mesh`, YAML) for the injector.
 * @throws InjectionConfigError naming `where` and the field
 */
export function parseInjectorMeshConfig(text: string, where = 'mesh config'): InjectorMeshConfig {
  const raw = parseYamlDocument(text, where) ?? {};
  if (!isRecord(raw)) throw new InjectionConfigError(`${where}: must be a map`);
  const td = raw['trustDomain'] ?? 'cluster.local';
  if (typeof td !== 'string') throw new InjectionConfigError(`${where}.trustDomain: must be a string`);
  const merge = raw['enablePrometheusMerge'] ?? true;
  if (typeof merge !== 'boolean') throw new InjectionConfigError(`${where}.enablePrometheusMerge: must be true or false`);
  const dc = raw['defaultConfig'] ?? {};
  if (!isRecord(dc)) throw new InjectionConfigError(`${where}.defaultConfig: must be a map (ProxyConfig)`);
  return { trustDomain: td, enablePrometheusMerge: merge, defaultConfig: dc };
}

/** The mesh config with nothing set. */
export function defaultInjectorMeshConfig(): InjectorMeshConfig {
  return { trustDomain: 'cluster.local', enablePrometheusMerge: true, defaultConfig: {} };
}
