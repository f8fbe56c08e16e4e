/**
 * PILOT_ENABLE_SERVICEENTRY_SELECT_PODS: a running Pod with an IP as a WorkloadEntry config, so that
 * ServiceEntries whose `workloadSelector` matches the pod's labels select it (core's ServiceEntryView
 * selects WorkloadEntries). Its readiness becomes the WorkloadEntry's `Healthy` condition.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { Config } from '../../core/index.js';
import { nodeLocality, ORCH_NAME_PREFIX, ORCH_SOURCE_ANNOTATION, spiffeId, NETWORK_LABEL } from './service-entry-from-service.js';

/** The WorkloadEntry of a pod, or undefined when the pod has no IP or has finished. */
export function workloadEntryFromPod(pod: V1Pod, node: V1Node | undefined, trustDomain: string): Config | undefined {
  const ip = pod.status?.podIP;
  const phase = pod.status?.phase;
  if (!ip || phase === 'Succeeded' || phase === 'Failed') return undefined;
  const ns = pod.metadata?.namespace ?? '';
  const labels = pod.metadata?.labels ?? {};
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' && !pod.metadata?.deletionTimestamp;
  const locality = nodeLocality(node);
  const sa = pod.spec?.serviceAccountName;
  return {
    apiVersion: 'networking.mesh.io/v1',
    kind: 'WorkloadEntry',
    metadata: { name: `${ORCH_NAME_PREFIX}${pod.metadata?.name ?? ''}`, namespace: ns, labels: { ...labels }, annotations: { [ORCH_SOURCE_ANNOTATION]: 'Pod' } },
    spec: {
      address: ip,
      labels: { ...labels },
      ...(labels[NETWORK_LABEL] ? { network: labels[NETWORK_LABEL] } : {}),
      ...(locality ? { locality } : {}),
      ...(sa ? { serviceAccount: spiffeId(trustDomain, ns, sa) } : {}),
    },
    status: { conditions: [{ type: 'Healthy', status: ready ? 'True' : 'False' }] },
  };
}
