/**
 * The injection analyzers: injection.Analyzer (namespace not injected: IST0102; several injection labels:
 * IST0123; a pod of an injected namespace without the proxy: IST0103), injection.ImageAnalyzer (proxy
 * images that differ from the injector's: IST0158) and injection.ImageAutoAnalyzer (`image: auto` on a
 * workload no injection webhook selects: IST0146 for controllers, IST0147 for pods).
 */
import { labelSelectorMatches } from '../../core/index.js';
import type { Analyzer } from '../analyzer.js';
import type { AnalysisContext, Workload } from '../analysis-context.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { rec, recs, str, strs } from '../object-access.js';
import type { Resource } from '../resource.js';

/** The namespace label that turns injection on (`enabled`) or off (`disabled`). */
export const INJECTION_LABEL = 'mesh-injection';
/** The revision label. */
export const REVISION_LABEL = 'mesh.io/rev';
/** The proxy container's name. */
export const PROXY_CONTAINER = 'mesh-proxy';
/** The per-pod injection annotation (and label). */
export const INJECT_ANNOTATION = 'sidecar.mesh.io/inject';
/** Namespaces the injector never touches. */
export const SYSTEM_NAMESPACES: ReadonlySet<string> = new Set(['kube-system', 'kube-public', 'kube-node-lease', 'local-path-storage', 'orch-system', 'orch-public', 'orch-node-lease']);

function injectedNamespaces(ctx: AnalysisContext, report: boolean): Set<string> {
  const injected = new Set<string>();
  const byDefault = enableNamespacesByDefault(ctx);
  for (const ns of ctx.all(K.Namespace)) {
    if (ns.name === ctx.settings.meshNamespace || SYSTEM_NAMESPACES.has(ns.name)) continue;
    if (ns.labels['mesh.io/dataplane-mode'] === 'ambient') continue;
    const label = ns.labels[INJECTION_LABEL];
    const rev = ns.labels[REVISION_LABEL];
    if (label === undefined && rev === undefined) {
      if (!report) continue;
      if (byDefault) ctx.report(MESSAGES.NamespaceInjectionEnabledByDefault, ns);
      else ctx.report(MESSAGES.NamespaceNotInjected, ns, ns.name, ns.name);
      continue;
    }
    if (rev !== undefined) {
      if (label !== undefined && report) ctx.report(MESSAGES.NamespaceMultipleInjectionLabels, ns, [INJECTION_LABEL, REVISION_LABEL]);
    } else if (label !== 'enabled') {
      continue;
    }
    injected.add(ns.name);
  }
  return injected;
}

function injectorValues(ctx: AnalysisContext): Record<string, unknown> {
  const cm = ctx.get(K.ConfigMap, ctx.settings.meshNamespace, ctx.settings.revision === 'default' ? 'mesh-sidecar-injector' : `mesh-sidecar-injector-${ctx.settings.revision}`);
  const text = str(rec(cm?.obj['data'])['values']);
  if (text === undefined) return {};
  try {
    return rec(JSON.parse(text));
  } catch {
    return {};
  }
}

function enableNamespacesByDefault(ctx: AnalysisContext): boolean {
  return rec(injectorValues(ctx)['sidecarInjectorWebhook'])['enableNamespacesByDefault'] === true;
}

function containers(spec: Readonly<Record<string, unknown>>): Record<string, unknown>[] {
  return [...recs(spec['initContainers']), ...recs(spec['containers'])];
}

function proxyImage(spec: Readonly<Record<string, unknown>>): string | undefined {
  return str(containers(spec).find((c) => c['name'] === PROXY_CONTAINER)?.['image']);
}

/** See the file comment. */
export const injectionAnalyzer: Analyzer = {
  name: 'injection.Analyzer',
  description: 'Checks conditions related to Mesh sidecar injection',
  inputs: [K.Namespace, K.Pod, K.ConfigMap],
  analyze(ctx) {
    const injected = injectedNamespaces(ctx, true);
    for (const pod of ctx.pods()) {
      if (!injected.has(pod.namespace)) continue;
      const off = pod.annotations[INJECT_ANNOTATION] ?? pod.labels[INJECT_ANNOTATION];
      if (off?.toLowerCase() === 'false' || pod.spec['hostNetwork'] === true) continue;
      if (proxyImage(pod.spec) === undefined) ctx.report(MESSAGES.PodMissingProxy, pod.resource, pod.resource.name);
    }
  },
};

/** See the file comment. */
export const injectionImageAnalyzer: Analyzer = {
  name: 'injection.ImageAnalyzer',
  description: 'Checks the image of auto-injection configured with the running proxies on pods',
  inputs: [K.Namespace, K.Pod, K.ConfigMap],
  analyze(ctx) {
    const values = injectorValues(ctx);
    const global = rec(values['global']);
    const hub = str(global['hub']);
    const tag = str(global['tag']);
    const image = str(rec(global['proxy'])['image']);
    if (!hub || !tag || !image) return;
    const expected = image.includes('/') ? image : `${hub}/${image}:${tag}`;
    const injected = injectedNamespaces(ctx, false);
    for (const ns of ctx.all(K.Namespace)) {
      if (!injected.has(ns.name)) continue;
      const mismatched = ctx
        .pods()
        .filter((p) => p.namespace === ns.name)
        .filter((p) => {
          const img = proxyImage(p.spec);
          return img !== undefined && img !== expected;
        })
        .map((p) => p.resource.name);
      if (mismatched.length > 0) ctx.report(MESSAGES.PodsMeshProxyImageMismatchInNamespace, ns, mismatched);
    }
  },
};

/**
 * A webhook's selector as read from the cluster (any JSON): matched by core's one matcher. A selector that
 * is absent or not an object is empty and matches everything, as the API server treats a missing one.
 */
function asLabelSelector(sel: unknown): Parameters<typeof labelSelectorMatches>[0] {
  const s = rec(sel);
  // NOTE: a label value that is not a string equals no label, as before; an unknown operator matches nothing.
  const matchLabels = rec(s['matchLabels']) as Record<string, string>;
  const matchExpressions = recs(s['matchExpressions']).map((e) => ({ key: str(e['key']) ?? '', operator: str(e['operator']) ?? '', values: strs(e['values']) }));
  return { matchLabels, matchExpressions };
}

function injectedByWebhook(ctx: AnalysisContext, w: Workload): boolean {
  const ns = ctx.get(K.Namespace, '', w.namespace);
  const nsLabels = { 'kubernetes.io/metadata.name': w.namespace, ...(ns?.labels ?? {}) };
  return ctx.all(K.MutatingWebhookConfiguration).some((mwc) =>
    recs(mwc.obj['webhooks']).some(
      (wh) => (str(wh['name']) ?? '').endsWith('sidecar-injector.mesh.io') && labelSelectorMatches(asLabelSelector(wh['namespaceSelector']), nsLabels) && labelSelectorMatches(asLabelSelector(wh['objectSelector']), w.labels),
    ),
  );
}

/** See the file comment. */
export const imageAutoAnalyzer: Analyzer = {
  name: 'injection.ImageAutoAnalyzer',
  description: 'Makes sure that Pods and Deployments with `image: auto` are going to be injected',
  inputs: [K.Namespace, K.Pod, K.Deployment, K.MutatingWebhookConfiguration],
  analyze(ctx) {
    for (const w of ctx.workloads()) {
      if (w.resource.kind !== 'Pod' && w.resource.kind !== 'Deployment') continue;
      if (!containers(w.spec).some((c) => c['image'] === 'auto')) continue;
      if (injectedByWebhook(ctx, w)) continue;
      const r: Resource = w.resource;
      const type = r.kind === 'Pod' ? MESSAGES.ImageAutoWithoutInjectionError : MESSAGES.ImageAutoWithoutInjectionWarning;
      ctx.report(type, r, r.kind, `${r.namespace}/${r.name}`);
    }
  },
};
