/**
 * GeneratorRegistry: the `ResourceGenerator` the ADS server uses, made of one `TypeGenerator` per xDS type
 * and kind of proxy. A proxy's generator of a type is looked up as istiod does: by the node's `GENERATOR`
 * metadata and the type URL, then by proxy type (sidecar, router) and type URL, then by type URL alone.
 * So proxyless gRPC clients, dataplane sidecars and routers (gateways) each get their own generators, and
 * `needsPush` asks the generator that serves this proxy. A proxy that no generator serves is refused when
 * it connects: "not implemented yet", not resources meant for another kind of proxy.
 */
import { proxyFromNode, type Proxy, type ProxyNode, type PushRequest } from '../../core/index.js';
import type { GenerateResult, GeneratorScope, ResourceGenerator, TypeGenerator, WatchedResource } from './contracts.js';
import { xdsType } from './xds-types.js';

/** Thrown (and the stream refused) for a proxy no registered generator serves yet. */
export class NotImplementedError extends Error {
  override readonly name = 'NotImplementedError';
}

/** Per-connection state: the parsed node and the model's view of the proxy. */
export interface RegisteredProxy {
  readonly node: ProxyNode;
  readonly proxy: Proxy;
  /** The proxy's generator per type URL, looked up once (pushes ask per connection and type). */
  readonly generators: Map<string, TypeGenerator | undefined>;
}

/** The lookup keys of a node for a type, most specific first. */
function lookupKeys(node: Pick<ProxyNode, 'type' | 'metadata'>, typeUrl: string): string[] {
  const keys: string[] = [];
  const generator = node.metadata['GENERATOR'];
  if (typeof generator === 'string' && generator !== '') keys.push(`generator:${generator}/${typeUrl}`);
  keys.push(`type:${node.type}/${typeUrl}`, `any/${typeUrl}`);
  return keys;
}

function scopeKey(scope: GeneratorScope, typeUrl: string): string {
  if ('generator' in scope) return `generator:${scope.generator}/${typeUrl}`;
  if ('proxyType' in scope) return `type:${scope.proxyType}/${typeUrl}`;
  return `any/${typeUrl}`;
}

function describe(node: ProxyNode): string {
  const generator = node.metadata['GENERATOR'];
  return typeof generator === 'string' && generator !== '' ? `${node.type} proxies with GENERATOR=${generator}` : `dataplane ${node.type} proxies`;
}

/**
 * Whether a push may change a type's resources, by the type's descriptor and the kinds `extra` that
 * cannot change this generator's: a proxy's own request and debug pushes always; an endpoint-only push
 * only types it carries (EDS); a full push that names nothing, every type; otherwise a push naming at
 * least one config of a kind that may affect the type.
 */
export function defaultNeedsPush(typeUrl: string, push: PushRequest, extra: ReadonlySet<string> = new Set()): boolean {
  if (push.forced || push.reasons.has('proxyrequest') || push.reasons.has('debug')) return true;
  const d = xdsType(typeUrl);
  if (!push.full) return d?.endpointPush ?? false;
  if (push.configsUpdated.size === 0) return true;
  for (const { kind } of push.configsUpdated) {
    if (!d?.unaffectedKinds.has(kind) && !extra.has(kind)) return true;
  }
  return false;
}

/** See the file comment. */
export class GeneratorRegistry implements ResourceGenerator<RegisteredProxy> {
  readonly #byKey = new Map<string, TypeGenerator>();
  /** What the registered generators serve, for the refusal message. */
  readonly #served = new Set<string>();

  /**
   * Registers a generator for the proxies of `scope`; a second one for the same scope and type throws.
   * Register before serving: a connection keeps the generators it looked up.
   */
  register(scope: GeneratorScope, generator: TypeGenerator): this {
    const key = scopeKey(scope, generator.typeUrl);
    if (this.#byKey.has(key)) throw new Error(`a generator is already registered for ${key}`);
    this.#byKey.set(key, generator);
    this.#served.add('generator' in scope ? `GENERATOR=${scope.generator}` : 'proxyType' in scope ? `${scope.proxyType} proxies` : 'every proxy');
    return this;
  }

  /** The generator of `typeUrl` for a node: by GENERATOR metadata, then proxy type, then type URL alone. */
  lookup(node: Pick<ProxyNode, 'type' | 'metadata'>, typeUrl: string): TypeGenerator | undefined {
    for (const k of lookupKeys(node, typeUrl)) {
      const g = this.#byKey.get(k);
      if (g) return g;
    }
    return undefined;
  }

  /** Refuses a node no registered generator serves (for any type): its kind is not built yet. */
  initProxy(node: ProxyNode): RegisteredProxy {
    const types = new Set([...this.#byKey.values()].map((g) => g.typeUrl));
    if (![...types].some((t) => this.lookup(node, t))) {
      throw new NotImplementedError(`not implemented yet: xDS generation for ${describe(node)} (meshd serves ${[...this.#served].sort().join(', ') || 'nothing'})`);
    }
    return { node, proxy: proxyFromNode(node), generators: new Map() };
  }

  #of(state: RegisteredProxy, typeUrl: string): TypeGenerator | undefined {
    if (state.generators.has(typeUrl)) return state.generators.get(typeUrl);
    const g = this.lookup(state.node, typeUrl);
    state.generators.set(typeUrl, g);
    return g;
  }

  needsPush(state: RegisteredProxy, typeUrl: string, push: PushRequest): boolean {
    const g = this.#of(state, typeUrl);
    if (!g) return false;
    return g.needsPush ? g.needsPush(state.proxy, push) : defaultNeedsPush(typeUrl, push, g.unaffectedKinds);
  }

  /** Generates with the proxy's generator of the type; a type it has none for is not served (empty answer). */
  generate(state: RegisteredProxy, watched: WatchedResource, push: PushRequest): GenerateResult | undefined | Promise<GenerateResult | undefined> {
    return this.#of(state, watched.typeUrl)?.generate(state.proxy, watched, push);
  }
}
