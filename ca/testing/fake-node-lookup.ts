// NodeLookup over an in-memory list of pods, for tests.
import type { NodeLookup, ServiceAccountRef } from '../server/node-authorizer.js';

/** Pods placed by `addPod(node, namespace, serviceAccount)`. */
export class FakeNodeLookup implements NodeLookup {
  readonly #pods: { node: string; namespace: string; serviceAccount: string }[] = [];

  addPod(node: string, namespace: string, serviceAccount: string): this {
    this.#pods.push({ node, namespace, serviceAccount });
    return this;
  }

  hasPodOnNode(nodeName: string, identity: ServiceAccountRef): Promise<boolean> {
    return Promise.resolve(this.#pods.some((p) => p.node === nodeName && p.namespace === identity.namespace && p.serviceAccount === identity.serviceAccount));
  }
}
