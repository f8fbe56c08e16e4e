/**
 * annotations.K8sAnalyzer: `mesh.io` annotations on Namespaces, Services, Pods, Deployments (and their pod
 * templates) and mesh.io resources are known (IST0108), on a kind they apply to (IST0107), not deprecated
 * (IST0135) or alpha (IST0136), and hold a valid value (IST0125).
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { rec } from '../object-access.js';
import type { Resource } from '../resource.js';

type Check = (v: string) => string | undefined;

interface AnnotationDef {
  readonly kinds: readonly string[];
  readonly deprecated?: string;
  readonly alpha?: boolean;
  readonly check?: Check;
}

const bool: Check = (v) => (/^(true|false)$/i.test(v) ? undefined : 'must be "true" or "false"');
const int: Check = (v) => (/^\d+$/.test(v) ? undefined : 'must be a non-negative integer');
const ports: Check = (v) => (v === '*' || /^(\s*\d+\s*)(,\s*\d+\s*)*$/.test(v) || v === '' ? undefined : 'must be "*" or a comma-separated list of ports');
const cidrs: Check = (v) =>
  v === '*' || v === '' || v.split(',').every((c) => /^[0-9a-fA-F:.]+\/\d{1,3}$/.test(c.trim())) ? undefined : 'must be "*" or a comma-separated list of CIDRs';
const oneOf =
  (...values: string[]): Check =>
  (v) =>
    values.includes(v) ? undefined : `must be one of ${values.join(', ')}`;

const POD = ['Pod'];
/** The mesh.io annotations analyze knows, by name. */
export const ANNOTATIONS: Readonly<Record<string, AnnotationDef>> = {
  'sidecar.mesh.io/inject': { kinds: POD, check: bool },
  'sidecar.mesh.io/status': { kinds: POD },
  'sidecar.mesh.io/proxyImage': { kinds: POD },
  'sidecar.mesh.io/proxyImageType': { kinds: POD },
  'sidecar.mesh.io/proxyCPU': { kinds: POD },
  'sidecar.mesh.io/proxyCPULimit': { kinds: POD },
  'sidecar.mesh.io/proxyMemory': { kinds: POD },
  'sidecar.mesh.io/proxyMemoryLimit': { kinds: POD },
  'sidecar.mesh.io/interceptionMode': { kinds: POD, check: oneOf('REDIRECT', 'TPROXY', 'NONE') },
  'sidecar.mesh.io/logLevel': { kinds: POD },
  'sidecar.mesh.io/componentLogLevel': { kinds: POD },
  'sidecar.mesh.io/agentLogLevel': { kinds: POD },
  'sidecar.mesh.io/rewriteAppHTTPProbers': { kinds: POD, check: bool },
  'sidecar.mesh.io/bootstrapOverride': { kinds: POD },
  'sidecar.mesh.io/discoveryAddress': { kinds: POD },
  'sidecar.mesh.io/userVolume': { kinds: POD },
  'sidecar.mesh.io/userVolumeMount': { kinds: POD },
  'sidecar.mesh.io/statsInclusionPrefixes': { kinds: POD, deprecated: ', use proxy.mesh.io/config proxyStatsMatcher instead' },
  'sidecar.mesh.io/statsInclusionSuffixes': { kinds: POD, deprecated: ', use proxy.mesh.io/config proxyStatsMatcher instead' },
  'sidecar.mesh.io/statsInclusionRegexps': { kinds: POD, deprecated: ', use proxy.mesh.io/config proxyStatsMatcher instead' },
  'sidecar.mesh.io/statsHistogramBuckets': { kinds: POD },
  'sidecar.mesh.io/extraStatTags': { kinds: POD },
  'sidecar.mesh.io/controlPlaneAuthPolicy': { kinds: POD, deprecated: '' },
  'sidecar.mesh.io/enableCoreDump': { kinds: POD, check: bool },
  'traffic.sidecar.mesh.io/includeOutboundIPRanges': { kinds: POD, check: cidrs },
  'traffic.sidecar.mesh.io/excludeOutboundIPRanges': { kinds: POD, check: cidrs },
  'traffic.sidecar.mesh.io/includeInboundPorts': { kinds: POD, check: ports },
  'traffic.sidecar.mesh.io/excludeInboundPorts': { kinds: POD, check: ports },
  'traffic.sidecar.mesh.io/includeOutboundPorts': { kinds: POD, check: ports },
  'traffic.sidecar.mesh.io/excludeOutboundPorts': { kinds: POD, check: ports },
  'traffic.sidecar.mesh.io/excludeInterfaces': { kinds: POD },
  'traffic.sidecar.mesh.io/kubevirtInterfaces': { kinds: POD, deprecated: ', use mesh.io/reroute-virtual-interfaces instead' },
  'mesh.io/reroute-virtual-interfaces': { kinds: POD },
  'status.sidecar.mesh.io/port': { kinds: POD, check: int },
  'readiness.status.sidecar.mesh.io/initialDelaySeconds': { kinds: POD, check: int },
  'readiness.status.sidecar.mesh.io/periodSeconds': { kinds: POD, check: int },
  'readiness.status.sidecar.mesh.io/failureThreshold': { kinds: POD, check: int },
  'readiness.status.sidecar.mesh.io/applicationPorts': { kinds: POD, check: ports },
  'proxy.mesh.io/config': { kinds: POD },
  'proxy.mesh.io/overrides': { kinds: POD },
  'prometheus.mesh.io/merge-metrics': { kinds: POD, check: bool },
  'inject.mesh.io/templates': { kinds: POD },
  'mesh.io/rev': { kinds: POD },
  'ambient.mesh.io/redirection': { kinds: POD },
  'networking.mesh.io/exportTo': { kinds: ['Service'] },
  'networking.mesh.io/traffic-distribution': { kinds: ['Service'], alpha: true },
  'alpha.mesh.io/canonical-serviceaccounts': { kinds: ['Service'], deprecated: '', alpha: true },
  'mesh.io/dry-run': { kinds: ['AuthorizationPolicy'], check: bool, alpha: true },
  'galley.mesh.io/analyze-suppress': { kinds: ['*'] },
  'kubectl.kubernetes.io/default-container': { kinds: ['*'] },
  'kubectl.kubernetes.io/default-logs-container': { kinds: ['*'] },
};

function isMeshAnnotation(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const domain = key.slice(0, slash);
  return domain === 'mesh.io' || domain.endsWith('.mesh.io');
}

function check(report: (type: (typeof MESSAGES)[keyof typeof MESSAGES], ...args: unknown[]) => void, kind: string, annotations: Readonly<Record<string, string>>): void {
  for (const [key, value] of Object.entries(annotations).sort(([a], [b]) => a.localeCompare(b))) {
    if (!isMeshAnnotation(key)) continue;
    const def = ANNOTATIONS[key];
    if (!def) {
      report(MESSAGES.UnknownAnnotation, key);
      continue;
    }
    if (!def.kinds.includes('*') && !def.kinds.includes(kind)) {
      report(MESSAGES.MisplacedAnnotation, key, def.kinds.join(', '));
      continue;
    }
    if (def.deprecated !== undefined) report(MESSAGES.DeprecatedAnnotation, key, def.deprecated);
    if (def.alpha) report(MESSAGES.AlphaAnnotation, key);
    const problem = def.check?.(value);
    if (problem !== undefined) report(MESSAGES.InvalidAnnotation, key, problem);
  }
}

const INPUTS = [K.Namespace, K.Service, K.Pod, K.Deployment, K.AuthorizationPolicy];

/** See the file comment. */
export const annotationsAnalyzer: Analyzer = {
  name: 'annotations.K8sAnalyzer',
  description: 'Checks for misplaced and invalid Mesh annotations in Orchestrator resources',
  inputs: INPUTS,
  analyze(ctx) {
    for (const k of INPUTS) {
      for (const r of ctx.all(k)) {
        const report = (type: (typeof MESSAGES)[keyof typeof MESSAGES], ...args: unknown[]): void => ctx.report(type, r as Resource, ...args);
        check(report, r.kind, r.annotations);
        if (r.kind === 'Deployment') {
          const tpl = rec(rec(rec(r.obj['spec'])['template'])['metadata'])['annotations'];
          const ann: Record<string, string> = {};
          for (const [a, v] of Object.entries(rec(tpl))) if (typeof v === 'string') ann[a] = v;
          check(report, 'Pod', ann);
        }
      }
    }
  },
};
