/**
 * What `meshctl bug-report` collects through the API server: cluster-scoped objects (namespaces, nodes,
 * webhooks, mesh.io CRDs), the namespaced objects of every namespace not excluded (Pods, Services,
 * Deployments, Events, ConfigMaps, Secrets redacted unless asked, every mesh.io kind), meshd's logs and the
 * proxy logs the include/exclude specs select (`pods/log`, cut to the time range). Requests run at most
 * `concurrency` at a time; at the deadline the fetches in flight are abandoned and what was captured is kept.
 */
import { stringify } from 'yaml';
import { systemClock, type Clock } from '../../core/index.js';
import { renderCrds } from '../../crds/index.js';
import { podHttpGet, type PodDialer } from '../reach/index.js';
import { logSelected, namespaceExcluded, type LogSpec, type LogTarget } from './log-spec.js';
import { cutLogAtEnd, type TimeRange } from './time-range.js';

/** The API server calls bug-report makes (`OrchClient` satisfies it). */
export interface BugReportApi {
  request<T>(method: string, path: string, options?: { readonly query?: Readonly<Record<string, string | number | boolean | undefined>>; readonly signal?: AbortSignal }): Promise<T>;
  requestText(method: string, path: string, options?: { readonly query?: Readonly<Record<string, string | number | boolean | undefined>>; readonly signal?: AbortSignal }): Promise<string>;
}

/** Options, read from the flags once by the command. */
export interface BugReportOptions {
  readonly meshNamespace: string;
  readonly include: readonly LogSpec[];
  readonly exclude: readonly LogSpec[];
  readonly fullSecrets: boolean;
  readonly range: TimeRange;
  /** Requests in flight at most (`--rq-concurrency`, 32 when 0). */
  readonly concurrency: number;
  /** `--timeout`: after it, captured data is kept and the rest is not fetched. */
  readonly timeoutMs: number;
  /** Progress lines (the command writes them to stderr). */
  readonly progress: (line: string) => void;
  readonly clock?: Clock;
  /** Reaches pods' ports (config dumps, meshd's debug endpoints); unset: those are not collected. */
  readonly dialer?: PodDialer;
}

/** The proxy admin port (config dumps). */
export const PROXY_ADMIN_PORT = 15000;
/** meshd's debug port. */
export const MESHD_DEBUG_PORT = 8080;
/** meshd's debug endpoints the report keeps. */
export const MESHD_DEBUG_PATHS = ['syncz', 'configz', 'registryz', 'endpointz', 'connections', 'push_status'] as const;

/** One file of the archive, relative to its top folder. */
export interface ArchiveEntry {
  readonly path: string;
  readonly content: string;
}

/** One fetch the report makes: where its result goes in the archive. */
export interface PlannedFetch {
  readonly path: string;
  readonly what: string;
}

/** What was collected and what was not. */
export interface CollectResult {
  readonly entries: readonly ArchiveEntry[];
  /** Fetches that failed, with the error. */
  readonly errors: readonly string[];
  /** Fetches not made because the timeout came first. */
  readonly skipped: readonly string[];
  readonly timedOut: boolean;
}

/** The value that replaces each Secret data value unless `--full-secrets`. */
export const REDACTED = '<redacted>';
/** The container of injected proxies, whose logs the include/exclude specs select. */
export const PROXY_CONTAINER = 'mesh-proxy';

interface Obj {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly labels?: Record<string, string>;
    readonly annotations?: Record<string, string>;
    readonly ownerReferences?: readonly { readonly kind?: string; readonly name?: string }[];
    readonly managedFields?: unknown;
  };
  readonly [k: string]: unknown;
}

const CLUSTER_KINDS = [
  { plural: 'namespaces', path: '/api/v1/namespaces' },
  { plural: 'nodes', path: '/api/v1/nodes' },
  { plural: 'mutatingwebhookconfigurations', path: '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations' },
  { plural: 'validatingwebhookconfigurations', path: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations' },
] as const;

const ORCH_NAMESPACED = [
  { plural: 'pods', path: '/api/v1/pods' },
  { plural: 'services', path: '/api/v1/services' },
  { plural: 'endpointslices', path: '/apis/discovery.k8s.io/v1/endpointslices' },
  { plural: 'deployments', path: '/apis/apps/v1/deployments' },
  { plural: 'replicasets', path: '/apis/apps/v1/replicasets' },
  { plural: 'events', path: '/api/v1/events' },
  { plural: 'configmaps', path: '/api/v1/configmaps' },
  { plural: 'secrets', path: '/api/v1/secrets' },
] as const;

/** The namespaced kinds collected: the orchestrator's and every mesh.io kind (from the CRDs meshctl knows). */
export function namespacedKinds(): { plural: string; path: string }[] {
  const mesh = renderCrds()
    .filter((c) => c.spec.scope === 'Namespaced')
    .map((c) => {
      const v = c.spec.versions.find((x) => x.storage) ?? c.spec.versions[0]!;
      return { plural: `${c.spec.names.plural}.${c.spec.group}`, path: `/apis/${c.spec.group}/${v.name}/${c.spec.names.plural}` };
    });
  return [...ORCH_NAMESPACED, ...mesh];
}

/** A Secret with every data value replaced by {@link REDACTED} (and no last-applied annotation, which may hold them). */
export function redactSecret(secret: Obj): Obj {
  const redact = (m: unknown): Record<string, string> | undefined => (m && typeof m === 'object' ? Object.fromEntries(Object.keys(m).map((k) => [k, REDACTED])) : undefined);
  const annotations = { ...(secret.metadata?.annotations ?? {}) };
  delete annotations['kubectl.kubernetes.io/last-applied-configuration'];
  const out: Record<string, unknown> = { ...secret, metadata: { ...secret.metadata, annotations } };
  for (const key of ['data', 'stringData']) if (secret[key] !== undefined) out[key] = redact(secret[key]);
  return out as Obj;
}

function yamlOf(items: readonly Obj[]): string {
  return items.map((o) => {
    const { managedFields: _drop, ...metadata } = o.metadata ?? {};
    return `---\n${stringify({ ...o, metadata }, { lineWidth: 0, aliasDuplicateObjects: false })}`;
  }).join('');
}

/** The Deployment of a pod, through its ReplicaSet's owner. */
function deploymentOf(pod: Obj, replicaSets: ReadonlyMap<string, Obj>): string {
  const rs = pod.metadata?.ownerReferences?.find((o) => o.kind === 'ReplicaSet')?.name;
  if (!rs) return '';
  const owner = replicaSets.get(`${pod.metadata?.namespace}/${rs}`)?.metadata?.ownerReferences?.find((o) => o.kind === 'Deployment')?.name;
  return owner ?? '';
}

/** The containers whose logs are collected: every container of meshd's pods, and the proxies the specs select. */
export function logTargets(pods: readonly Obj[], replicaSets: readonly Obj[], opts: Pick<BugReportOptions, 'meshNamespace' | 'include' | 'exclude'>): LogTarget[] {
  const rsByKey = new Map(replicaSets.map((r) => [`${r.metadata?.namespace}/${r.metadata?.name}`, r]));
  const out: LogTarget[] = [];
  for (const pod of pods) {
    const m = pod.metadata ?? {};
    const containers = ((pod['spec'] as { containers?: { name: string }[] } | undefined)?.containers ?? []).map((c) => c.name);
    const isMeshd = m.namespace === opts.meshNamespace && m.labels?.['app'] === 'meshd';
    for (const container of containers) {
      const t: LogTarget = { namespace: m.namespace ?? '', deployment: deploymentOf(pod, rsByKey), pod: m.name ?? '', labels: m.labels ?? {}, annotations: m.annotations ?? {}, container };
      if (isMeshd || (container === PROXY_CONTAINER && logSelected(opts.include, opts.exclude, t))) out.push(t);
    }
  }
  return out.sort((a, b) => `${a.namespace}/${a.pod}/${a.container}`.localeCompare(`${b.namespace}/${b.pod}/${b.container}`));
}

interface Task {
  readonly label: string;
  readonly run: (signal: AbortSignal) => Promise<void>;
}

/** One HTTP GET to a pod's port, and its file in the archive. */
interface PodFetch {
  readonly pod: { readonly namespace: string; readonly name: string };
  readonly port: number;
  readonly httpPath: string;
  readonly path: string;
  readonly what: string;
}

/** The proxies' config dumps and meshd's debug endpoints, for the pods whose logs are collected. */
function podFetches(targets: readonly LogTarget[], meshNamespace: string): PodFetch[] {
  const out: PodFetch[] = [];
  for (const t of targets) {
    const pod = { namespace: t.namespace, name: t.pod };
    if (t.container === PROXY_CONTAINER) {
      out.push({ pod, port: PROXY_ADMIN_PORT, httpPath: '/config_dump', path: `proxies/${t.namespace}/${t.pod}/config_dump.json`, what: `GET :${PROXY_ADMIN_PORT}/config_dump on pod ${t.pod}.${t.namespace}` });
    } else if (t.namespace === meshNamespace && !out.some((f) => f.pod.name === t.pod && f.pod.namespace === t.namespace)) {
      for (const d of MESHD_DEBUG_PATHS) {
        out.push({ pod, port: MESHD_DEBUG_PORT, httpPath: `/debug/${d}`, path: `meshd/${t.pod}/debug/${d}.json`, what: `GET :${MESHD_DEBUG_PORT}/debug/${d} on pod ${t.pod}.${t.namespace}` });
      }
    }
  }
  return out;
}

/** Runs tasks at most `n` at a time until done or `signal` aborts; returns the labels never started. */
async function runLimited(tasks: readonly Task[], n: number, signal: AbortSignal, onError: (label: string, e: unknown) => void): Promise<string[]> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length && !signal.aborted) {
      const t = tasks[next++]!;
      try {
        await t.run(signal);
      } catch (e) {
        if (!signal.aborted) onError(t.label, e);
        else onError(t.label, new Error('abandoned at the timeout'));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(n, tasks.length)) }, worker));
  return tasks.slice(next).map((t) => t.label);
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Lists a kind; a kind the API server does not serve lists empty. */
async function list(api: BugReportApi, path: string, signal: AbortSignal): Promise<Obj[]> {
  try {
    return [...((await api.request<{ items?: Obj[] }>('GET', path, { signal })).items ?? [])];
  } catch (e) {
    if ((e as { status?: number }).status === 404) return [];
    throw e;
  }
}

/**
 * Lists what the report would hold without fetching objects or logs (`--dry-run`): reads only the
 * namespaces, pods and ReplicaSets, to know which namespaces and logs the specs select.
 */
export async function planBugReport(api: BugReportApi, opts: Omit<BugReportOptions, 'timeoutMs' | 'progress'>): Promise<PlannedFetch[]> {
  const signal = new AbortController().signal;
  const [namespaces, pods, replicaSets] = await Promise.all([list(api, '/api/v1/namespaces', signal), list(api, '/api/v1/pods', signal), list(api, '/apis/apps/v1/replicasets', signal)]);
  const kept = namespaces.map((n) => n.metadata?.name ?? '').filter((n) => n === opts.meshNamespace || !namespaceExcluded(opts.exclude, n)).sort();
  const out: PlannedFetch[] = CLUSTER_KINDS.map((k) => ({ path: `cluster/${k.plural}.yaml`, what: `GET ${k.path}` }));
  for (const k of namespacedKinds()) out.push({ path: `resources/<namespace>/${k.plural}.yaml`, what: `GET ${k.path} (namespaces ${kept.join(', ')})${k.plural === 'secrets' && !opts.fullSecrets ? ', data redacted' : ''}` });
  const keptSet = new Set(kept);
  for (const t of logTargets(pods.filter((p) => keptSet.has(p.metadata?.namespace ?? '')), replicaSets, opts)) {
    out.push({ path: `logs/${t.namespace}/${t.pod}/${t.container}.log`, what: `GET /api/v1/namespaces/${t.namespace}/pods/${t.pod}/log?container=${t.container}` });
  }
  for (const p of podFetches(logTargets(pods.filter((p) => keptSet.has(p.metadata?.namespace ?? '')), replicaSets, opts), opts.meshNamespace)) out.push({ path: p.path, what: p.what });
  return out;
}

/** Collects everything (see the file comment). Never throws for one failed fetch: it is listed in `errors`. */
export async function collectBugReport(api: BugReportApi, opts: BugReportOptions): Promise<CollectResult> {
  const clock = opts.clock ?? systemClock;
  const deadline = new AbortController();
  const cancel = clock.setTimer(() => deadline.abort(new Error(`timeout after ${opts.timeoutMs} ms`)), opts.timeoutMs);
  const entries: ArchiveEntry[] = [];
  const errors: string[] = [];
  const onError = (label: string, e: unknown): void => {
    errors.push(`${label}: ${message(e)}`);
  };
  const skipped: string[] = [];
  try {
    opts.progress('Collecting cluster-scoped objects');
    const clusterTasks: Task[] = CLUSTER_KINDS.map((k) => ({
      label: `GET ${k.path}`,
      run: async (signal) => {
        entries.push({ path: `cluster/${k.plural}.yaml`, content: yamlOf(await list(api, k.path, signal)) });
      },
    }));
    const lists = new Map<string, Obj[]>();
    const kinds = namespacedKinds();
    const listTasks: Task[] = kinds.map((k) => ({
      label: `GET ${k.path}`,
      run: async (signal) => {
        lists.set(k.plural, await list(api, k.path, signal));
      },
    }));
    skipped.push(...(await runLimited([...clusterTasks, ...listTasks], opts.concurrency, deadline.signal, onError)));
    const namespaces = namespacesOf(lists);
    const kept = new Set(namespaces.filter((n) => n === opts.meshNamespace || !namespaceExcluded(opts.exclude, n)));
    opts.progress(`Collecting objects of ${kept.size} namespaces`);
    for (const k of kinds) {
      const byNs = new Map<string, Obj[]>();
      for (const o of lists.get(k.plural) ?? []) {
        const ns = o.metadata?.namespace ?? '';
        if (!kept.has(ns)) continue;
        if (!byNs.has(ns)) byNs.set(ns, []);
        byNs.get(ns)!.push(k.plural === 'secrets' && !opts.fullSecrets ? redactSecret(o) : o);
      }
      for (const [ns, items] of [...byNs].sort(([a], [b]) => a.localeCompare(b))) entries.push({ path: `resources/${ns}/${k.plural}.yaml`, content: yamlOf(items) });
    }
    const pods = (lists.get('pods') ?? []).filter((p) => kept.has(p.metadata?.namespace ?? ''));
    const targets = logTargets(pods, lists.get('replicasets') ?? [], opts);
    let done = 0;
    const logTasks: Task[] = targets.map((t) => {
      const path = `/api/v1/namespaces/${encodeURIComponent(t.namespace)}/pods/${encodeURIComponent(t.pod)}/log`;
      return {
        label: `GET ${path}?container=${t.container}`,
        run: async (signal) => {
          const query = { container: t.container, timestamps: true, ...(opts.range.start ? { sinceTime: opts.range.start.toISOString() } : {}) };
          try {
            const text = await api.requestText('GET', path, { query, signal });
            entries.push({ path: `logs/${t.namespace}/${t.pod}/${t.container}.log`, content: cutLogAtEnd(text, opts.range) });
          } finally {
            done += 1;
            opts.progress(`Fetched log ${done}/${targets.length}: ${t.namespace}/${t.pod}/${t.container}`);
          }
        },
      };
    });
    const dialer = opts.dialer;
    const fetches = dialer ? podFetches(targets, opts.meshNamespace) : [];
    const podTasks: Task[] = fetches.map((p) => ({
      label: p.what,
      run: async (signal) => {
        entries.push({ path: p.path, content: await podHttpGet(dialer!, p.pod, p.port, p.httpPath, { signal }) });
        opts.progress(`Fetched ${p.path}`);
      },
    }));
    if (!deadline.signal.aborted) opts.progress(`Fetching ${targets.length} logs${dialer ? ` and ${fetches.length} config dumps and debug endpoints` : ''}`);
    skipped.push(...(await runLimited([...logTasks, ...podTasks], opts.concurrency, deadline.signal, onError)));
  } finally {
    cancel();
  }
  return { entries: entries.sort((a, b) => a.path.localeCompare(b.path)), errors, skipped, timedOut: deadline.signal.aborted };
}

function namespacesOf(lists: ReadonlyMap<string, Obj[]>): string[] {
  const names = new Set<string>();
  for (const items of lists.values()) for (const o of items) if (o.metadata?.namespace) names.add(o.metadata.namespace);
  return [...names].sort();
}
