/**
 * The sidecar injector: decides (inject-policy.ts), renders the pod's templates with the injection data
 * model (template-data.ts), merges them into the pod (pod-overlay.ts) and post-processes it
 * (pod-post-process.ts). Shared by meshd's `/inject` webhook and `meshctl orch-inject`, so both give the
 * same pod.
 */
import { GoInt, typedMap, type GoValue, type TemplateSet } from '../templates/index.js';
import { defaultInjectionConfig, defaultInjectionValues, defaultInjectorMeshConfig, mergeValues, parseInjectionConfig, parseInjectionValues, parseInjectorMeshConfig, parseYamlDocument, type InjectionConfig, type InjectorMeshConfig } from './injection-config.js';
import { injectRequired, SIDECAR_STATUS, type InjectDecision } from './inject-policy.js';
import { isObject, overlay, type JsonObject } from './pod-overlay.js';
import { applyProxyOverrides, mergePrometheus, PROXY_CONTAINER, REWRITE_PROBERS, reorderContainers, rewriteAppProbes, statusAnnotation } from './pod-post-process.js';
import { goView, injectionTemplateSet } from './template-data.js';

/** Pod annotation naming the templates to apply (comma-separated), instead of `defaultTemplates`. */
export const INJECT_TEMPLATES = 'inject.mesh.io/templates';
/** Pod annotation with ProxyConfig overrides (YAML or JSON). */
export const PROXY_CONFIG_ANNOTATION = 'proxy.mesh.io/config';
/** Pod annotation choosing native sidecars (`true`/`false`) over the injector's default. */
export const NATIVE_SIDECAR_ANNOTATION = 'sidecar.mesh.io/nativeSidecar';
/** The revision label of injected pods and of namespaces. */
export const REVISION_LABEL = 'mesh.io/rev';
/** The proxy's user and group. */
export const PROXY_UID = 1337;

/** Everything the injector is configured with. */
export interface InjectorSettings {
  readonly config: InjectionConfig;
  readonly values: Readonly<Record<string, unknown>>;
  readonly meshConfig: InjectorMeshConfig;
  /** The control plane's revision; `default` when it has none. */
  readonly revision: string;
  /** Whether the proxy runs as a native sidecar (init container with restartPolicy Always) by default. */
  readonly nativeSidecars: boolean;
  /** What the templates' `env` function reads (the injector's own environment). */
  readonly env?: (name: string) => string | undefined;
}

/** Settings with nothing configured (built-in templates and values). */
export function defaultInjectorSettings(overrides: Partial<InjectorSettings> = {}): InjectorSettings {
  return {
    config: defaultInjectionConfig(),
    values: defaultInjectionValues(),
    meshConfig: defaultInjectorMeshConfig(),
    revision: 'default',
    nativeSidecars: false,
    ...overrides,
  };
}

/** The workload owning a pod, as templates see it (`.TypeMeta`, `.DeploymentMeta`). */
export interface WorkloadMeta {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
}

/** Per-pod options of {@link SidecarInjector.inject}. */
export interface InjectOptions {
  /** The owning workload; derived from the pod's controller reference when absent. */
  readonly workload?: WorkloadMeta;
  /** Values merged over the injector's (the webhook path's `cluster` and `net`). */
  readonly values?: Record<string, unknown>;
}

/** Thrown when injection cannot produce a pod: unknown template, template error, bad annotation. */
export class InjectionError extends Error {
  override readonly name = 'InjectionError';
}

/** The outcome of {@link SidecarInjector.inject}. */
export type InjectionResult =
  | { readonly injected: true; readonly pod: JsonObject; readonly decision: InjectDecision; readonly templates: readonly string[] }
  | { readonly injected: false; readonly pod: JsonObject; readonly decision: InjectDecision };

function stringRecord(v: unknown): Record<string, string> {
  if (!isObject(v)) return {};
  return Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x === 'string')) as Record<string, string>;
}

/** The workload of a pod from its controller reference (a ReplicaSet of a Deployment counts as the Deployment). */
export function workloadOfPod(pod: JsonObject, namespace: string): WorkloadMeta {
  const meta = isObject(pod['metadata']) ? pod['metadata'] : {};
  const labels = stringRecord(meta['labels']);
  const refs = Array.isArray(meta['ownerReferences']) ? meta['ownerReferences'].filter(isObject) : [];
  const ctl = refs.find((r) => r['controller'] === true) ?? refs[0];
  if (ctl && typeof ctl['name'] === 'string' && typeof ctl['kind'] === 'string') {
    const name = ctl['name'];
    const hash = labels['pod-template-hash'];
    if (ctl['kind'] === 'ReplicaSet' && hash && name.endsWith(`-${hash}`)) return { apiVersion: 'apps/v1', kind: 'Deployment', name: name.slice(0, -hash.length - 1), namespace };
    const cron = /^(.+)-\d+$/.exec(name);
    if (ctl['kind'] === 'Job' && cron && labels['batch.kubernetes.io/controller-uid'] === undefined) return { apiVersion: 'batch/v1', kind: 'CronJob', name: cron[1]!, namespace };
    return { apiVersion: String(ctl['apiVersion'] ?? ''), kind: ctl['kind'], name, namespace };
  }
  const name = typeof meta['name'] === 'string' && meta['name'] !== '' ? meta['name'] : String(meta['generateName'] ?? '').replace(/-$/, '');
  return { apiVersion: 'v1', kind: 'Pod', name, namespace };
}

/** Injects pods; parsed templates are kept for the injector's life (make a new one when settings change). */
export class SidecarInjector {
  readonly #sets = new Map<string, TemplateSet>();
  readonly settings: InjectorSettings;

  constructor(settings: InjectorSettings) {
    this.settings = settings;
  }

  /** The template names a pod asks for, aliases expanded. @throws InjectionError for an unknown name */
  templatesFor(annotations: Readonly<Record<string, string>>): string[] {
    const { config } = this.settings;
    const asked = annotations[INJECT_TEMPLATES];
    const requested = asked !== undefined && asked.trim() !== '' ? asked.split(',').map((s) => s.trim()).filter((s) => s !== '') : [...config.defaultTemplates];
    // NOTE: own properties only: a pod asking for "valueOf" or "constructor" (fuzz finding) must not get Object.prototype's.
    const out = requested.flatMap((n) => (Object.hasOwn(config.aliases, n) ? config.aliases[n]! : [n]));
    for (const n of out) {
      if (!Object.hasOwn(config.templates, n)) {
        throw new InjectionError(`template ${JSON.stringify(n)} (${asked !== undefined ? `annotation ${INJECT_TEMPLATES}` : 'defaultTemplates'}) is not defined; known templates: ${Object.keys(config.templates).sort().join(', ')}`);
      }
    }
    return out;
  }

  #set(name: string): TemplateSet {
    let set = this.#sets.get(name);
    if (!set) {
      set = injectionTemplateSet(this.settings.env ?? (() => undefined));
      try {
        set.parse(name, this.settings.config.templates[name]!);
      } catch (e) {
        throw new InjectionError(`template ${JSON.stringify(name)}: ${(e as Error).message}`);
      }
      this.#sets.set(name, set);
    }
    return set;
  }

  /** The ProxyConfig of a pod: defaults, then mesh config `defaultConfig`, then `proxy.mesh.io/config`. */
  proxyConfig(annotations: Readonly<Record<string, string>>): JsonObject {
    let own: unknown = {};
    const text = annotations[PROXY_CONFIG_ANNOTATION];
    if (text !== undefined) {
      try {
        own = parseYamlDocument(text, `annotation ${PROXY_CONFIG_ANNOTATION}`) ?? {};
      } catch (e) {
        throw new InjectionError((e as Error).message);
      }
      if (!isObject(own)) throw new InjectionError(`annotation ${PROXY_CONFIG_ANNOTATION}: must be a ProxyConfig map`);
    }
    const base = { interceptionMode: 'REDIRECT', proxyMetadata: {}, holdApplicationUntilProxyStarts: false, statusPort: 15020 };
    return overlay(overlay(base, this.settings.meshConfig.defaultConfig), own) as JsonObject;
  }

  /**
   * Injects `pod` (a Pod object, not changed) in `namespace`, owned by `options.workload` (derived from the
   * pod when absent), with `options.values` over the injector's values. A pod the policy skips comes back unchanged with the reason.
   * @throws InjectionError for a template that fails or an annotation that does not parse
   */
  inject(pod: JsonObject, namespace: string, options: InjectOptions = {}): InjectionResult {
    const workload = options.workload;
    const meta = isObject(pod['metadata']) ? pod['metadata'] : {};
    const spec = isObject(pod['spec']) ? pod['spec'] : {};
    const labels = stringRecord(meta['labels']);
    const annotations = stringRecord(meta['annotations']);
    const decision = injectRequired(this.settings.config, { namespace, labels, annotations, hostNetwork: spec['hostNetwork'] === true });
    if (!decision.inject) return { injected: false, pod, decision };
    const templates = this.templatesFor(annotations);
    const owner = workload ?? workloadOfPod(pod, namespace);
    const proxyConfig = this.proxyConfig(annotations);
    const nativeAnno = annotations[NATIVE_SIDECAR_ANNOTATION];
    const native = nativeAnno !== undefined ? nativeAnno === 'true' : this.settings.nativeSidecars;
    const values = options.values ? mergeValues(this.settings.values as Record<string, unknown>, options.values) : (this.settings.values as Record<string, unknown>);
    const data = this.#data(pod, namespace, owner, proxyConfig, native, values);
    let out: JsonObject = structuredClone(pod);
    const renderedSpecs: JsonObject[] = [];
    if (!isObject(out['metadata'])) out['metadata'] = {};
    for (const name of templates) {
      let text: string;
      try {
        text = this.#set(name).execute(name, data);
      } catch (e) {
        throw e instanceof InjectionError ? e : new InjectionError(`template ${JSON.stringify(name)}: ${(e as Error).message}`);
      }
      let rendered: unknown;
      try {
        rendered = parseYamlDocument(text, `the output of template ${JSON.stringify(name)}`) ?? {};
      } catch (e) {
        throw new InjectionError((e as Error).message);
      }
      if (!isObject(rendered)) throw new InjectionError(`template ${JSON.stringify(name)}: its output must be a partial pod (metadata, spec)`);
      out = overlay(out, rendered) as JsonObject;
      if (isObject(rendered['spec'])) renderedSpecs.push(rendered['spec']);
    }
    this.#postProcess(pod, out, renderedSpecs, proxyConfig, native, values);
    return { injected: true, pod: out, decision, templates };
  }

  #data(pod: JsonObject, namespace: string, owner: WorkloadMeta, proxyConfig: JsonObject, native: boolean, values: Record<string, unknown>): GoValue {
    const meta = isObject(pod['metadata']) ? pod['metadata'] : {};
    const objectMeta = goView({ name: '', namespace, ...meta, labels: stringRecord(meta['labels']), annotations: stringRecord(meta['annotations']) });
    const spec = isObject(pod['spec']) ? pod['spec'] : {};
    const global = (isObject(values['global']) ? values['global'] : {}) as JsonObject;
    const proxy = (isObject(global['proxy']) ? global['proxy'] : {}) as JsonObject;
    const image = String(proxy['image'] ?? 'proxyv2');
    const proxyImage = image.includes('/') ? image : `${String(global['hub'] ?? '')}/${image}:${String(global['tag'] ?? '')}`;
    return {
      TypeMeta: { APIVersion: owner.apiVersion, Kind: owner.kind },
      DeploymentMeta: { Name: owner.name, Namespace: owner.namespace },
      ObjectMeta: objectMeta,
      Spec: goView({ serviceAccountName: '', containers: [], ...spec }),
      ProxyConfig: goView(proxyConfig),
      MeshConfig: { TrustDomain: this.settings.meshConfig.trustDomain, EnablePrometheusMerge: this.settings.meshConfig.enablePrometheusMerge, DefaultConfig: goView(this.settings.meshConfig.defaultConfig) },
      Values: values as GoValue,
      Revision: this.settings.revision,
      ProxyImage: proxyImage,
      ProxyUID: new GoInt(PROXY_UID, 'int64'),
      ProxyGID: new GoInt(PROXY_UID, 'int64'),
      NativeSidecars: native,
      InjectedAnnotations: typedMap('string', { ...this.settings.config.injectedAnnotations }),
    };
  }

  #postProcess(before: JsonObject, out: JsonObject, rendered: readonly JsonObject[], proxyConfig: JsonObject, native: boolean, values: Record<string, unknown>): void {
    const meta = out['metadata'] as JsonObject;
    const spec = (isObject(out['spec']) ? out['spec'] : (out['spec'] = {})) as JsonObject;
    const beforeSpec = isObject(before['spec']) ? before['spec'] : {};
    const ownProxy = Array.isArray(beforeSpec['containers']) ? beforeSpec['containers'].filter(isObject).find((c) => c['name'] === PROXY_CONTAINER) : undefined;
    applyProxyOverrides(spec, ownProxy);
    reorderContainers(spec, !native && proxyConfig['holdApplicationUntilProxyStarts'] === true);
    const annos = stringRecord(meta['annotations']);
    const statusPort = Number(annos['status.sidecar.mesh.io/port'] ?? ((values['global'] as JsonObject | undefined)?.['proxy'] as JsonObject | undefined)?.['statusPort'] ?? 15020);
    const webhook = (values['sidecarInjectorWebhook'] ?? {}) as JsonObject;
    const rewrite = annos[REWRITE_PROBERS] !== undefined ? annos[REWRITE_PROBERS] === 'true' : webhook['rewriteAppHTTPProbe'] !== false;
    if (rewrite) rewriteAppProbes(spec, statusPort);
    if (this.settings.meshConfig.enablePrometheusMerge) mergePrometheus(meta, spec, statusPort);
    meta['annotations'] = {
      ...stringRecord(meta['annotations']),
      ...this.settings.config.injectedAnnotations,
      [SIDECAR_STATUS]: statusAnnotation(beforeSpec, rendered, this.settings.revision),
    };
  }
}

/** The injector's inputs as text: ConfigMap `mesh-sidecar-injector`'s `config` and `values`, ConfigMap `mesh`'s `mesh`. */
export interface InjectorTexts {
  readonly config?: string | undefined;
  readonly values?: string | undefined;
  readonly meshConfig?: string | undefined;
}

/**
 * Settings from the injector's texts (absent ones take the defaults); `revision` falls back to the values'
 * `revision`, then `default`.
 * @throws InjectionConfigError naming the source and field that do not parse
 */
export function injectorSettingsFrom(texts: InjectorTexts, rest: { revision?: string; nativeSidecars?: boolean; env?: (name: string) => string | undefined } = {}): InjectorSettings {
  const values = texts.values !== undefined ? parseInjectionValues(texts.values) : defaultInjectionValues();
  const fromValues = typeof values['revision'] === 'string' && values['revision'] !== '' ? values['revision'] : undefined;
  return {
    config: texts.config !== undefined ? parseInjectionConfig(texts.config) : defaultInjectionConfig(),
    values,
    meshConfig: texts.meshConfig !== undefined ? parseInjectorMeshConfig(texts.meshConfig) : defaultInjectorMeshConfig(),
    revision: rest.revision || fromValues || 'default',
    nativeSidecars: rest.nativeSidecars ?? false,
    ...(rest.env ? { env: rest.env } : {}),
  };
}
