import type { KubernetesObject } from '@kubernetes/client-node';
import { Informer, type InformerOptions } from './informer.js';
import type { OrchTransport } from './orch-client.js';
import type { OrchResource } from './orch-resource.js';

/** Options shared by every informer of a factory. */
export interface InformerFactoryOptions extends Omit<InformerOptions, 'namespace' | 'labelSelector' | 'fieldSelector'> {
  /** `MESH_WATCH_NAMESPACE`: restrict every namespaced informer to this one namespace. */
  readonly watchNamespace?: string | undefined;
}

/** Per-informer filters. */
export interface InformerSelectors {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

/**
 * Hands out one shared {@link Informer} per resource (and selector pair): every caller asking for pods
 * gets the same instance, so one list+watch serves all of them.
 */
export class InformerFactory {
  readonly #client: OrchTransport;
  readonly #options: InformerFactoryOptions;
  readonly #informers = new Map<string, Informer<KubernetesObject>>();

  constructor(client: OrchTransport, options: InformerFactoryOptions = {}) {
    this.#client = client;
    this.#options = options;
  }

  /** The shared informer of `resource`, created on first use. */
  informer<T extends KubernetesObject>(resource: OrchResource, selectors: InformerSelectors = {}): Informer<T> {
    const namespace = resource.namespaced ? this.#options.watchNamespace : undefined;
    const key = [resource.group, resource.version, resource.plural, namespace ?? '', selectors.labelSelector ?? '', selectors.fieldSelector ?? ''].join('|');
    let informer = this.#informers.get(key);
    if (!informer) {
      const { watchNamespace: _ignored, ...shared } = this.#options;
      informer = new Informer<KubernetesObject>(this.#client, resource, { ...shared, ...selectors, namespace });
      this.#informers.set(key, informer);
    }
    return informer as unknown as Informer<T>;
  }
}
