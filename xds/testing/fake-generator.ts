/**
 * A ResourceGenerator for transport tests: serves whatever resources a test puts in it, records every
 * call, and can refuse proxies, fail a type, or decline pushes.
 */
import type { PushRequest } from '../../core/index.js';
import type { GenerateResult, GeneratedResource, ProxyNode, ResourceGenerator, WatchedResource } from '../server/contracts.js';
import { encode } from '../protos/index.js';

/** The fake's per-proxy state. */
export interface FakeProxy {
  readonly node: ProxyNode;
  closed: boolean;
}

/** One recorded generate call. */
export interface GenerateCall {
  readonly nodeId: string;
  readonly typeUrl: string;
  readonly names: readonly string[];
  readonly wildcard: boolean;
  readonly push: PushRequest;
}

/** The fake generator. Mutate `resources` through `set`/`delete`; then push to see the effect. */
export class FakeGenerator implements ResourceGenerator<FakeProxy> {
  readonly proxies: FakeProxy[] = [];
  readonly calls: GenerateCall[] = [];
  readonly #resources = new Map<string, Map<string, GeneratedResource>>();
  /** Types the fake does not serve (generate returns undefined). */
  readonly unserved = new Set<string>();
  /** When set, initProxy throws an Error with the returned message (if any). */
  refuse: ((node: ProxyNode) => string | undefined) | undefined;
  /** When set, generate throws for this type. */
  failType: string | undefined;
  /** needsPush policy; default: always. */
  needs: (typeUrl: string, push: PushRequest) => boolean = () => true;
  /** When set, generate waits for this promise first (to hold a push in flight). */
  gate: Promise<void> | undefined;

  /** Puts a resource: an encoded body, or a plain object encoded as the type. */
  set(typeUrl: string, name: string, resource: Uint8Array | object): void {
    const body = resource instanceof Uint8Array ? resource : encode(typeUrl, resource);
    this.#of(typeUrl).set(name, { name, body });
  }

  delete(typeUrl: string, name: string): void {
    this.#of(typeUrl).delete(name);
  }

  initProxy(node: ProxyNode): FakeProxy {
    const why = this.refuse?.(node);
    if (why !== undefined) throw new Error(why);
    const p = { node, closed: false };
    this.proxies.push(p);
    return p;
  }

  closeProxy(proxy: FakeProxy): void {
    proxy.closed = true;
  }

  needsPush(_proxy: FakeProxy, typeUrl: string, push: PushRequest): boolean {
    return this.needs(typeUrl, push);
  }

  async generate(proxy: FakeProxy, watched: WatchedResource, push: PushRequest): Promise<GenerateResult | undefined> {
    this.calls.push({ nodeId: proxy.node.id, typeUrl: watched.typeUrl, names: [...watched.names], wildcard: watched.wildcard, push });
    if (this.gate) await this.gate;
    if (this.failType === watched.typeUrl) throw new Error(`fake failure for ${watched.typeUrl}`);
    if (this.unserved.has(watched.typeUrl)) return undefined;
    return { resources: [...this.#of(watched.typeUrl).values()] };
  }

  #of(typeUrl: string): Map<string, GeneratedResource> {
    let m = this.#resources.get(typeUrl);
    if (!m) {
      m = new Map();
      this.#resources.set(typeUrl, m);
    }
    return m;
  }
}

/** A minimal EDS Cluster in plain-object form. */
export function edsCluster(name: string): object {
  return { name, type: 'EDS', edsClusterConfig: { edsConfig: { ads: {}, resourceApiVersion: 'V3' } }, connectTimeout: { seconds: 1 } };
}

/** A ClusterLoadAssignment with one endpoint (locality and weight set, as gRPC clients need). */
export function loadAssignment(clusterName: string, ip: string, port: number): object {
  return {
    clusterName,
    endpoints: [
      {
        locality: { region: 'r1', zone: 'z1' },
        loadBalancingWeight: { value: 1 },
        lbEndpoints: [{ endpoint: { address: { socketAddress: { address: ip, portValue: port } } }, healthStatus: 'HEALTHY', loadBalancingWeight: { value: 1 } }],
      },
    ],
  };
}

/** A listener with one socket address (enough for transport tests). */
export function simpleListener(name: string, port: number): object {
  return { name, address: { socketAddress: { address: '0.0.0.0', portValue: port } } };
}

/** A route configuration with one virtual host sending everything to `cluster`. */
export function simpleRoute(name: string, domain: string, cluster: string): object {
  return { name, virtualHosts: [{ name: domain, domains: [domain], routes: [{ match: { prefix: '' }, route: { cluster } }] }] };
}
