/**
 * The webhook configurations that send pods to `/inject` and mesh.io resources to `/validate`, with the
 * selectors Istio's chart uses (renamed): the default revision answers namespaces labelled
 * `mesh-injection=enabled` and pods labelled `sidecar.mesh.io/inject=true`; revision (or tag) `R` answers
 * namespaces labelled `mesh.io/rev=R` and pods labelled `mesh.io/rev=R`. A pod labelled
 * `sidecar.mesh.io/inject=false` is never sent.
 */
import { KINDS } from '../crds/index.js';
import { SIDECAR_INJECT } from './inject-policy.js';
import type { LabelSelector } from './injection-config.js';
import { selectorMatches } from './inject-policy.js';
import { REVISION_LABEL } from './sidecar-injector.js';

/** The namespace label that turns injection on for the default revision. */
export const NAMESPACE_INJECTION_LABEL = 'mesh-injection';

/** Where the API server reaches meshd: a URL, or a Service. */
export type WebhookTarget = { readonly url: string } | { readonly service: { readonly name: string; readonly namespace: string; readonly port?: number } };

/** Options of {@link injectionWebhookConfiguration}. */
export interface InjectionWebhookOptions {
  /** Revision; `default` (or empty) for the default revision. */
  readonly revision: string;
  /** A tag (`mesh-revision-tag-<tag>`) selecting namespaces by `mesh.io/rev=<tag>` for `revision`. */
  readonly tag?: string;
  /** Base of the target (`https://host:port` or a Service); `/inject` is appended. */
  readonly target: WebhookTarget;
  /** PEM of the root that signed meshd's serving certificate. */
  readonly caBundlePem: string;
  /** Name of the configuration; `mesh-sidecar-injector[-<revision>]` or `mesh-revision-tag-<tag>` by default. */
  readonly name?: string;
  readonly failurePolicy?: 'Fail' | 'Ignore';
}

type Json = Record<string, unknown>;

const isDefault = (rev: string): boolean => rev === '' || rev === 'default';

function clientConfig(target: WebhookTarget, path: string, caBundlePem: string): Json {
  const caBundle = Buffer.from(caBundlePem).toString('base64');
  if ('url' in target) return { url: `${target.url.replace(/\/+$/, '')}${path}`, caBundle };
  return { service: { name: target.service.name, namespace: target.service.namespace, port: target.service.port ?? 443, path }, caBundle };
}

/** The MutatingWebhookConfiguration for a revision (or a tag of it). */
export function injectionWebhookConfiguration(o: InjectionWebhookOptions): Json {
  const selectValue = o.tag ?? (isDefault(o.revision) ? undefined : o.revision);
  const name = o.name ?? (o.tag ? `mesh-revision-tag-${o.tag}` : isDefault(o.revision) ? 'mesh-sidecar-injector' : `mesh-sidecar-injector-${o.revision}`);
  const common = {
    clientConfig: clientConfig(o.target, '/inject', o.caBundlePem),
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }],
    failurePolicy: o.failurePolicy ?? 'Fail',
    sideEffects: 'None',
    reinvocationPolicy: 'Never',
    admissionReviewVersions: ['v1'],
    matchPolicy: 'Equivalent',
    timeoutSeconds: 10,
  };
  const notOptedOut = { key: SIDECAR_INJECT, operator: 'NotIn', values: ['false'] };
  const webhooks = selectValue === undefined
    ? [
      { name: 'namespace.sidecar-injector.mesh.io', ...common, namespaceSelector: { matchExpressions: [{ key: NAMESPACE_INJECTION_LABEL, operator: 'In', values: ['enabled'] }] }, objectSelector: { matchExpressions: [notOptedOut] } },
      {
        name: 'object.sidecar-injector.mesh.io',
        ...common,
        namespaceSelector: { matchExpressions: [{ key: NAMESPACE_INJECTION_LABEL, operator: 'DoesNotExist' }, { key: REVISION_LABEL, operator: 'DoesNotExist' }] },
        objectSelector: { matchExpressions: [{ key: SIDECAR_INJECT, operator: 'In', values: ['true'] }, { key: REVISION_LABEL, operator: 'DoesNotExist' }] },
      },
    ]
    : [
      {
        name: 'rev.namespace.sidecar-injector.mesh.io',
        ...common,
        namespaceSelector: { matchExpressions: [{ key: REVISION_LABEL, operator: 'In', values: [selectValue] }, { key: NAMESPACE_INJECTION_LABEL, operator: 'DoesNotExist' }] },
        objectSelector: { matchExpressions: [notOptedOut] },
      },
      {
        name: 'rev.object.sidecar-injector.mesh.io',
        ...common,
        namespaceSelector: { matchExpressions: [{ key: REVISION_LABEL, operator: 'DoesNotExist' }, { key: NAMESPACE_INJECTION_LABEL, operator: 'DoesNotExist' }] },
        objectSelector: { matchExpressions: [notOptedOut, { key: REVISION_LABEL, operator: 'In', values: [selectValue] }] },
      },
    ];
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name, labels: { app: 'sidecar-injector', [REVISION_LABEL]: isDefault(o.revision) ? 'default' : o.revision, ...(o.tag ? { 'mesh.io/tag': o.tag } : {}) } },
    webhooks,
  };
}

/** The ValidatingWebhookConfiguration for every mesh.io group (failurePolicy Ignore until meshd serves, as Istio starts it). */
export function validationWebhookConfiguration(o: { readonly name: string; readonly revision: string; readonly target: WebhookTarget; readonly caBundlePem: string; readonly failurePolicy?: 'Fail' | 'Ignore' }): Json {
  const groups = [...new Set(Object.values(KINDS).map((k) => k.group))].sort();
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: o.name, labels: { app: 'meshd', [REVISION_LABEL]: isDefault(o.revision) ? 'default' : o.revision } },
    webhooks: [
      {
        name: 'rev.validation.mesh.io',
        clientConfig: clientConfig(o.target, '/validate', o.caBundlePem),
        rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: groups, apiVersions: ['*'], resources: ['*'], scope: '*' }],
        failurePolicy: o.failurePolicy ?? 'Ignore',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        ...(isDefault(o.revision) ? {} : { objectSelector: { matchExpressions: [{ key: REVISION_LABEL, operator: 'In', values: [o.revision] }] } }),
      },
    ],
  };
}

/** One webhook's verdict for a pod in a namespace. */
export interface WebhookVerdict {
  /** `configuration/webhook`. */
  readonly webhook: string;
  /** The configuration's `mesh.io/rev` label (`default` when absent). */
  readonly revision: string;
  readonly injected: boolean;
  readonly reason: string;
}

function describeLabels(kind: 'Namespace' | 'Pod', sel: LabelSelector, labels: Readonly<Record<string, string>>): string {
  const parts: string[] = [];
  for (const e of sel.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    if (e.operator === 'In' && has) parts.push(`${kind} label ${e.key}=${labels[e.key]!}`);
    if (e.operator === 'NotIn' && has) parts.push(`${kind} label ${e.key}=${labels[e.key]!}`);
  }
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] === v) parts.push(`${kind} label ${k}=${v}`);
  return parts.join(', ');
}

function unmatched(kind: 'Namespace' | 'Pod', sel: LabelSelector, labels: Readonly<Record<string, string>>): string {
  const parts: string[] = [];
  for (const e of sel.matchExpressions ?? []) {
    const single: LabelSelector = { matchExpressions: [e] };
    if (selectorMatches(single, labels)) continue;
    const v = labels[e.key];
    if (e.operator === 'In') parts.push(v === undefined ? `no ${kind.toLowerCase()} label ${e.key} (wants ${(e.values ?? []).join('|')})` : `${kind.toLowerCase()} label ${e.key}=${v} (wants ${(e.values ?? []).join('|')})`);
    else if (e.operator === 'NotIn') parts.push(`${kind.toLowerCase()} label ${e.key}=${v!}`);
    else if (e.operator === 'DoesNotExist') parts.push(`${kind.toLowerCase()} label ${e.key}=${v!} is set`);
    else parts.push(`no ${kind.toLowerCase()} label ${e.key}`);
  }
  return parts.join(', ');
}

/** Empty selectors match everything (the API server's reading). */
function matchesOrEmpty(sel: unknown, labels: Readonly<Record<string, string>>): boolean {
  const s = (sel ?? {}) as LabelSelector;
  if (Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0) return true;
  return selectorMatches(s, labels);
}

/**
 * Which injection webhooks of `configs` the API server would call for a pod with `podLabels` in a namespace
 * with `namespaceLabels`, and why (`meshctl x check-inject`).
 */
export function checkInjection(configs: readonly Json[], namespaceLabels: Readonly<Record<string, string>>, podLabels: Readonly<Record<string, string>>): WebhookVerdict[] {
  const out: WebhookVerdict[] = [];
  for (const cfg of configs) {
    const meta = (cfg['metadata'] ?? {}) as { name?: string; labels?: Record<string, string> };
    const revision = meta.labels?.[REVISION_LABEL] ?? 'default';
    for (const wh of (Array.isArray(cfg['webhooks']) ? cfg['webhooks'] : []) as Json[]) {
      const name = `${meta.name ?? '?'}/${String(wh['name'])}`;
      if (!String(wh['name']).includes('sidecar-injector')) continue;
      const ns = (wh['namespaceSelector'] ?? {}) as LabelSelector;
      const obj = (wh['objectSelector'] ?? {}) as LabelSelector;
      const nsOk = matchesOrEmpty(ns, namespaceLabels);
      const objOk = matchesOrEmpty(obj, podLabels);
      if (nsOk && objOk) {
        const why = [describeLabels('Namespace', ns, namespaceLabels), describeLabels('Pod', obj, podLabels)].filter((s) => s !== '').join(', ');
        out.push({ webhook: name, revision, injected: true, reason: why || 'selectors match everything' });
      } else {
        const why = [nsOk ? '' : unmatched('Namespace', ns, namespaceLabels), objOk ? '' : unmatched('Pod', obj, podLabels)].filter((s) => s !== '').join(', ');
        out.push({ webhook: name, revision, injected: false, reason: why });
      }
    }
  }
  return out;
}

