/**
 * Stands in for the kubelet and the deployment controller, which the harness's control plane does not run:
 * every Deployment the watch sees is marked observed, updated and available as soon as it is written.
 */
import type { Subscription } from 'rxjs';
import type { OrchClient } from '../../controllers/index.js';

interface WatchedDeployment {
  metadata: { name: string; namespace: string; generation?: number };
  spec: { replicas?: number };
  status?: { observedGeneration?: number; availableReplicas?: number; updatedReplicas?: number };
}

/** Marks the Deployments of `listPath` (default: every namespace) available; unsubscribe to stop. */
export function markDeploymentsAvailable(client: OrchClient, listPath = '/apis/apps/v1/deployments'): Subscription {
  return client.watch(listPath, {}).subscribe({
    next: (ev) => {
      if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') return;
      const d = ev.object as unknown as WatchedDeployment;
      const want = d.spec.replicas ?? 1;
      const gen = d.metadata.generation ?? 1;
      if (d.status?.observedGeneration === gen && d.status.availableReplicas === want && d.status.updatedReplicas === want) return;
      const status = {
        observedGeneration: gen,
        replicas: want,
        updatedReplicas: want,
        readyReplicas: want,
        availableReplicas: want,
        conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'the e2e test stands in for the kubelet' }],
      };
      const path = `/apis/apps/v1/namespaces/${d.metadata.namespace}/deployments/${d.metadata.name}/status`;
      client.request('PATCH', path, { body: { status }, contentType: 'application/merge-patch+json' }).catch(() => {
        // NOTE: a later event retries (the object may have changed under us).
      });
    },
    error: () => {},
  });
}
