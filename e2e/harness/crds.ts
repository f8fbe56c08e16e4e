/** Installs mesh.io CRDs on the test cluster. */
import type { CustomResourceDefinition } from '../../crds/index.js';
import { OrchApiError, ORCH_RESOURCES, objectPath, resourcePath, type OrchClient } from '../../controllers/index.js';
import { waitFor } from './wait-for.js';

/** Creates or replaces each CRD (plain JSON requests), then waits until every one is Established. */
export async function applyCrds(client: OrchClient, crds: readonly CustomResourceDefinition[]): Promise<void> {
  for (const crd of crds) {
    const path = objectPath(ORCH_RESOURCES.customResourceDefinitions, crd.metadata.name);
    try {
      const existing = await client.request<{ metadata: { resourceVersion: string } }>('GET', path);
      await client.request('PUT', path, { body: { ...crd, metadata: { ...crd.metadata, resourceVersion: existing.metadata.resourceVersion } } });
    } catch (err) {
      if (!(err instanceof OrchApiError && err.status === 404)) throw err;
      await client.request('POST', resourcePath(ORCH_RESOURCES.customResourceDefinitions), { body: crd });
    }
  }
  for (const crd of crds) {
    const path = objectPath(ORCH_RESOURCES.customResourceDefinitions, crd.metadata.name);
    await waitFor(`CRD ${crd.metadata.name} to be established`, async () => {
      const got = await client.request<{ status?: { conditions?: { type: string; status: string }[] } }>('GET', path);
      return got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
    });
  }
}
