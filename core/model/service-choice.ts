/**
 * Which service answers for a host name when several ServiceEntries (and an orchestrator Service) declare it:
 * once for the whole mesh (`chooseServices`, where no proxy is involved), and per proxy namespace
 * (`NamespaceServiceChoice`) as istiod's default Sidecar scope picks it (push_context.go
 * `servicesExportedToNamespace`, sidecar.go `DefaultSidecarScopeForNamespace` / `appendSidecarServices`).
 */
import { orchServiceOf, type Service } from './service.js';

/** Creation order as istiod's SortServicesByCreationTime, with the declaring config's key as the tie-break. */
function olderService(a: Service, b: Service): boolean {
  if (a.creationTimestamp !== b.creationTimestamp) return a.creationTimestamp < b.creationTimestamp;
  return a.source < b.source;
}

function byAge(a: Service, b: Service): number {
  return olderService(a, b) ? -1 : olderService(b, a) ? 1 : 0;
}

/** istiod's canMergeServices: two services of one host whose ports a Sidecar scope merges. */
function canMergeServices(a: Service, b: Service): boolean {
  const sameList = (x: readonly string[], y: readonly string[]): boolean => x.length === y.length && [...x].sort().join('\n') === [...y].sort().join('\n');
  const sameLabels = (x: Readonly<Record<string, string>>, y: Readonly<Record<string, string>>): boolean =>
    Object.keys(x).length === Object.keys(y).length && Object.keys(x).every((k) => x[k] === y[k]);
  return (
    a.namespace === b.namespace &&
    a.resolution === b.resolution &&
    (orchServiceOf(a) === undefined) === (orchServiceOf(b) === undefined) &&
    sameLabels(a.labels, b.labels) &&
    sameList(a.exportTo, b.exportTo)
  );
}

/** The service of `ordered` (the candidates in the order the viewer sees them) istiod's appendSidecarServices keeps: the first orchestrator Service, else the first. */
function first(ordered: readonly Service[]): Service {
  return ordered.find((s) => orchServiceOf(s) !== undefined) ?? ordered[0]!;
}

/**
 * istiod's choice (its SidecarScope, with unified Sidecar scoping) among the declarations of one host that a proxy of
 * namespace `from` imports, given in the order it sees them (see exportRank): the namespace of the first, replaced by
 * `from` when `from` declares the host too, and a ServiceEntry's namespace by an orchestrator Service's unless that
 * takes the host from `from`; of the chosen namespace's declarations, its orchestrator Service, else the first.
 * Undefined when `imported` is empty.
 */
export function viewerChoice(imported: readonly Service[], from: string): Service | undefined {
  let ns: string | undefined;
  let orch = false;
  for (const s of imported) {
    const isOrch = orchServiceOf(s) !== undefined;
    if (ns === undefined || s.namespace === from || (!orch && isOrch && ns !== from)) {
      ns = s.namespace;
      orch = isOrch;
    }
  }
  return ns === undefined ? undefined : first(imported.filter((s) => s.namespace === ns));
}

/**
 * `chosen` with the ports of the younger services of `all` that `canMergeServices` admits (by number; istiod's
 * appendSidecarServices); a frozen copy, or `chosen` itself when nothing merges. Those services share the
 * chosen one's namespace and exportTo, so every viewer that picks `chosen` sees them too: the result depends on
 * `chosen` alone.
 */
function merged(chosen: Service, all: readonly Service[]): Service {
  let ports = chosen.ports;
  for (const s of all) {
    if (s === chosen || !canMergeServices(chosen, s)) continue;
    const extra = s.ports.filter((p) => !ports.some((q) => q.port === p.port));
    if (extra.length > 0) ports = [...ports, ...extra];
  }
  return ports === chosen.ports ? chosen : Object.freeze({ ...chosen, ports: Object.freeze(ports) });
}

/** The services of each host, oldest first. */
function byHost(all: Iterable<Service>): Map<string, Service[]> {
  const out = new Map<string, Service[]>();
  for (const s of all) {
    const list = out.get(s.hostname);
    if (list) list.push(s);
    else out.set(s.hostname, [s]);
  }
  for (const list of out.values()) if (list.length > 1) list.sort(byAge);
  return out;
}

/**
 * One service per host for the whole mesh (where no proxy is involved: debug endpoints, metrics, the push
 * request's config keys): an orchestrator Service wins over ServiceEntries (no "domain squatting"), else the
 * oldest; a younger ServiceEntry of the same namespace that istiod's canMergeServices admits (same resolution,
 * labels and exportTo) adds the ports the chosen one lacks (by number). Proxies see
 * {@link NamespaceServiceChoice}'s choice instead.
 */
export function chooseServices(all: Iterable<Service>): Map<string, Service> {
  const out = new Map<string, Service>();
  for (const [host, list] of byHost(all)) out.set(host, list.length === 1 ? list[0]! : merged(first(list), list));
  return out;
}

/**
 * Where a service stands in the order a proxy of namespace `from` sees services (istiod's ServiceIndex):
 * 0 private to `from` (exportTo `.` or `from` itself), 1 exported to `from` by name, 2 public (`*`);
 * undefined when not visible. An empty exportTo takes `defaults` (private first, as istiod).
 */
export function exportRank(s: Pick<Service, 'exportTo' | 'namespace'>, defaults: readonly string[], from: string): 0 | 1 | 2 | undefined {
  let to = s.exportTo;
  if (to.length === 0) {
    if (defaults.includes('.')) return s.namespace === from ? 0 : undefined;
    if (defaults.includes('*')) return 2;
    to = defaults;
  }
  if (to.includes('*')) return 2;
  if (to.includes('~')) return undefined;
  if (from === s.namespace && (to.includes('.') || to.includes(from))) return 0;
  return to.includes(from) ? 1 : undefined;
}

/**
 * The per-namespace choice (istiod's `SidecarScope.servicesByHostname` of a namespace's default scope): a proxy
 * of namespace `ns` looks at its namespace's private services, then those exported to it by name, then public
 * ones, each group oldest first, and takes {@link viewerChoice} of a host's (its own namespace's declaration
 * first, an orchestrator Service over ServiceEntries); the later ones of the chosen service's namespace that
 * canMergeServices admits add their ports.
 * Hosts declared once answer with the one service (when visible). Memoized per namespace: every proxy of a
 * namespace asks the same questions. The instance is filled lazily but never changes an answer.
 */
export class NamespaceServiceChoice {
  /** Hosts declared by more than one service, their services oldest first. */
  readonly #shared: ReadonlyMap<string, readonly Service[]>;
  /** The mesh-wide choice of every host, sorted by host name. */
  readonly #global: readonly Service[];
  readonly #defaults: readonly string[];
  // NOTE: per namespace: the visible services sorted by host, and the choice of every shared host visible there.
  readonly #visible = new Map<string, readonly Service[]>();
  readonly #chosen = new Map<string, ReadonlyMap<string, Service>>();
  // NOTE: one object per chosen service (merged ports included), the mesh-wide choice's own where they agree, so
  // that namespaces picking the same service share what is memoized per service object.
  readonly #merged = new Map<Service, Service>();

  /**
   * @param all every service of the registry (several per host allowed)
   * @param global the mesh-wide choice (see chooseServices), sorted by host name
   * @param defaults the mesh config's `defaultServiceExportTo`
   */
  constructor(all: Iterable<Service>, global: readonly Service[], defaults: readonly string[]) {
    const shared = new Map<string, readonly Service[]>();
    for (const [host, list] of byHost(all)) if (list.length > 1) shared.set(host, list);
    this.#shared = shared;
    for (const g of global) {
      const list = shared.get(g.hostname);
      if (list) this.#merged.set(first(list), g);
    }
    this.#global = global;
    this.#defaults = defaults;
  }

  /** Whether any host is declared by more than one service (else every namespace sees the mesh-wide choice). */
  get anyShared(): boolean {
    return this.#shared.size > 0;
  }

  /**
   * The service of a host several services declare that a proxy of namespace `from` sees; undefined when none of
   * them is visible to it, and for a host one service declares (PushContext answers those with the mesh-wide choice).
   */
  serviceFor(hostname: string, from: string): Service | undefined {
    return this.#shared.has(hostname) ? this.#chosenIn(from).get(hostname) : undefined;
  }

  /** The services declaring a host several services declare, oldest first; undefined for other hosts. */
  declarations(hostname: string): readonly Service[] | undefined {
    return this.#shared.get(hostname);
  }

  /** Whether `hostname` is declared by more than one service (its choice may differ per namespace). */
  isShared(hostname: string): boolean {
    return this.#shared.has(hostname);
  }

  /** The services a proxy of namespace `from` sees, one per host, sorted by host name. */
  visibleTo(from: string): readonly Service[] {
    const known = this.#visible.get(from);
    if (known) return known;
    const chosen = this.#chosenIn(from);
    const out: Service[] = [];
    for (const s of this.#global) {
      if (this.#shared.has(s.hostname)) {
        const c = chosen.get(s.hostname);
        if (c) out.push(c);
      } else if (exportRank(s, this.#defaults, from) !== undefined) out.push(s);
    }
    const frozen = Object.freeze(out);
    this.#visible.set(from, frozen);
    return frozen;
  }

  /**
   * The services declaring a shared host that a proxy of namespace `from` sees, in the order it sees them
   * (private, exported to it by name, public; oldest first in each); empty for other hosts.
   */
  visibleDeclarations(hostname: string, from: string): readonly Service[] {
    const list = this.#shared.get(hostname);
    if (!list) return [];
    const ranked: Service[][] = [[], [], []];
    for (const s of list) {
      const r = exportRank(s, this.#defaults, from);
      if (r !== undefined) ranked[r]!.push(s);
    }
    return ranked.flat();
  }

  /** A declaration of a shared host as served: with the ports of the younger same-namespace ones it merges (one object per declaration). */
  served(chosen: Service): Service {
    const list = this.#shared.get(chosen.hostname);
    if (!list) return chosen;
    let m = this.#merged.get(chosen);
    if (!m) this.#merged.set(chosen, (m = merged(chosen, list)));
    return m;
  }

  #chosenIn(from: string): ReadonlyMap<string, Service> {
    const known = this.#chosen.get(from);
    if (known) return known;
    const out = new Map<string, Service>();
    for (const host of this.#shared.keys()) {
      const chosen = viewerChoice(this.visibleDeclarations(host, from), from);
      if (chosen) out.set(host, this.served(chosen));
    }
    this.#chosen.set(from, out);
    return out;
  }
}
