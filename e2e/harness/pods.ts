import type { OrchClient } from '../../controllers/index.js';

/**
 * Creates a pod and, when `phase` is given, writes that phase (and Ready) into its status: no kubelet runs
 * behind the harness's API server, so nothing else would.
 */
export async function createPod(client: OrchClient, ns: string, name: string, labels: Record<string, string>, phase?: string): Promise<void> {
  await client.request('POST', `/api/v1/namespaces/${ns}/pods`, {
    body: { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels }, spec: { containers: [{ name: 'app', image: 'app:1' }] } },
  });
  if (phase === undefined) return;
  const pod = await client.request<Record<string, unknown>>('GET', `/api/v1/namespaces/${ns}/pods/${name}`);
  await client.request('PUT', `/api/v1/namespaces/${ns}/pods/${name}/status`, {
    body: { ...pod, status: { phase, podIP: '10.0.0.9', conditions: [{ type: 'Ready', status: 'True' }] } },
  });
}
