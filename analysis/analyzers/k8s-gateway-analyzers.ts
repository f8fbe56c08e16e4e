/**
 * Analyzers of the orchestrator's Gateway API as Istio's `k8sgateway` package has them:
 * - k8sgateway.SelectorAnalyzer: a policy (AuthorizationPolicy, RequestAuthentication, Telemetry, WasmPlugin)
 *   that picks a Gateway API gateway's pods by `selector` instead of `targetRef` has no effect on them (IST0166).
 * - k8sgateway.CRDVersionAnalyzer: a Gateway API CRD whose `gateway.networking.k8s.io/bundle-version` is below
 *   the version meshd needs is not watched, so its resources are silently ignored (IST0156).
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { rec } from '../object-access.js';
import { matchLabelsOf } from '../selectors.js';

/** The label the Gateway API deployment controller puts on a gateway's pods. */
export const GATEWAY_NAME_LABEL = 'gateway.networking.k8s.io/gateway-name';
/** The annotation Gateway API CRDs carry their release in. */
export const BUNDLE_VERSION_ANNOTATION = 'gateway.networking.k8s.io/bundle-version';

/** The lowest Gateway API release meshd watches, per CRD (as Istio's `gatewayapi.MinimumCRDVersions`). */
export const MINIMUM_GATEWAY_API_CRD_VERSIONS: Readonly<Record<string, readonly [number, number, number]>> = {
  'grpcroutes.gateway.networking.k8s.io': [1, 1, 0],
  'backendtlspolicies.gateway.networking.k8s.io': [1, 4, 0],
  'tlsroutes.gateway.networking.k8s.io': [1, 5, 0],
};

const POLICY_KINDS = [K.AuthorizationPolicy, K.RequestAuthentication, K.Telemetry, K.WasmPlugin] as const;

/** See the file comment. */
export const k8sGatewaySelectorAnalyzer: Analyzer = {
  name: 'k8sgateway.SelectorAnalyzer',
  description: 'Check that selectors are effective for Orchestrator gateway',
  inputs: [...POLICY_KINDS, K.Pod],
  analyze(ctx) {
    const gatewayPods = new Map<string, Readonly<Record<string, string>>[]>();
    for (const pod of ctx.all(K.Pod)) {
      if (pod.labels[GATEWAY_NAME_LABEL] === undefined) continue;
      gatewayPods.set(pod.namespace, [...(gatewayPods.get(pod.namespace) ?? []), pod.labels]);
    }
    if (gatewayPods.size === 0) return;
    for (const kind of POLICY_KINDS) {
      for (const policy of ctx.all(kind)) {
        const spec = rec(policy.obj['spec']);
        if (spec['targetRef'] !== undefined || spec['selector'] === undefined) continue;
        const selector = matchLabelsOf(spec['selector']) ?? {};
        for (const labels of gatewayPods.get(policy.namespace) ?? []) {
          if (Object.entries(selector).every(([k, v]) => labels[k] === v)) ctx.report(MESSAGES.IneffectiveSelector, policy, labels[GATEWAY_NAME_LABEL]);
        }
      }
    }
  },
};

/** `major.minor.patch` of a lenient semantic version (`v1.2`, `1.2.3-rc.1`); undefined when it is none. */
export function parseLenientVersion(text: string): { core: [number, number, number]; text: string } | undefined {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.exec(text.trim());
  if (!m) return undefined;
  const core: [number, number, number] = [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
  return { core, text: `${core.join('.')}${m[4] ?? ''}${m[5] ?? ''}` };
}

function below(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

/** See the file comment. */
export const k8sGatewayCrdVersionAnalyzer: Analyzer = {
  name: 'k8sgateway.CRDVersionAnalyzer',
  description: 'Checks Gateway API CRDs are at the minimum version required by this Mesh version',
  inputs: [K.CustomResourceDefinition],
  analyze(ctx) {
    for (const crd of ctx.all(K.CustomResourceDefinition)) {
      const minimum = MINIMUM_GATEWAY_API_CRD_VERSIONS[crd.name];
      const bundle = crd.annotations[BUNDLE_VERSION_ANNOTATION];
      if (!minimum || bundle === undefined) continue;
      const installed = parseLenientVersion(bundle);
      // NOTE: the prerelease is dropped before comparing (v1.5.0-rc.1 counts as 1.5.0), as Istio does.
      if (installed && below(installed.core, minimum)) ctx.report(MESSAGES.UnsupportedGatewayAPIVersion, crd, installed.text, minimum.join('.'));
    }
  },
};
