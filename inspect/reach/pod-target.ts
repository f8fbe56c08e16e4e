/**
 * The target of a pod-reaching command, `[<type>/]<name>[.<namespace>]` as istioctl spells it: `productpage-v1-abc`,
 * `deployment/reviews-v1.bookinfo`, `svc/ratings`. The type is `pod` when absent.
 */
import { ReachError } from './reach-error.js';

/** The kinds of object a target may name. */
export const TARGET_KINDS = ['pod', 'deployment', 'service'] as const;
/** One of {@link TARGET_KINDS}. */
export type TargetKind = (typeof TARGET_KINDS)[number];

/** A parsed target: what to look up, and where. */
export interface PodTarget {
  readonly kind: TargetKind;
  readonly name: string;
  readonly namespace: string;
}

/** A pod by namespace and name: what a {@link PodDialer} reaches. */
export interface PodRef {
  readonly namespace: string;
  readonly name: string;
}

const KIND_ALIASES: Readonly<Record<string, TargetKind>> = {
  pod: 'pod',
  pods: 'pod',
  po: 'pod',
  deployment: 'deployment',
  deployments: 'deployment',
  deploy: 'deployment',
  'deployment.apps': 'deployment',
  service: 'service',
  services: 'service',
  svc: 'service',
};

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * Parses `[<type>/]<name>[.<namespace>]`. The namespace is the text after the last dot (istioctl's rule:
 * pod names do not hold dots in practice), else `defaultNamespace`.
 * @throws ReachError naming the target when the type is unknown or a part is empty or not a valid name
 */
export function parsePodTarget(text: string, defaultNamespace: string): PodTarget {
  const slash = text.indexOf('/');
  const typeText = slash >= 0 ? text.slice(0, slash).toLowerCase() : 'pod';
  const rest = slash >= 0 ? text.slice(slash + 1) : text;
  const kind = KIND_ALIASES[typeText];
  if (!kind) {
    throw new ReachError(`target "${text}": unknown type "${typeText}" (use pod, deployment/deploy or service/svc)`);
  }
  const dot = rest.lastIndexOf('.');
  const name = dot >= 0 ? rest.slice(0, dot) : rest;
  const namespace = dot >= 0 ? rest.slice(dot + 1) : defaultNamespace;
  if (name === '' || !DNS_SUBDOMAIN.test(name)) {
    throw new ReachError(`target "${text}": "${name}" is not a valid ${kind} name (want [<type>/]<name>[.<namespace>])`);
  }
  if (namespace === '' || !DNS_LABEL.test(namespace)) {
    throw new ReachError(`target "${text}": "${namespace}" is not a valid namespace`);
  }
  return { kind, name, namespace };
}

/** `name.namespace`, the way messages name a pod or object. */
export function dotted(ref: { readonly name: string; readonly namespace: string }): string {
  return `${ref.name}.${ref.namespace}`;
}
