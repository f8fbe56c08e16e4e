/**
 * The fold micro-benchmark behind `npm run bench:fold` (see main.ts): pure functions over MeshModel's
 * public `apply` and `endpoints`, so the same script measures any version of the model.
 */
import { MeshModel, type Config, type ModelInput } from '../../../core/index.js';
import { summarize, type Summary } from '../stats.js';

/** Options of a run. */
export interface FoldOptions {
  /** Config counts to load (5 configs per service). */
  readonly sizes: readonly number[];
  /** One-WorkloadEntry batches folded per size (after a few warm-up batches). */
  readonly changes: number;
  /** WorkloadEntries per service (default 2). */
  readonly endpoints: number;
}

/** One size's result; times in milliseconds. */
export interface FoldRow {
  readonly configs: number;
  readonly services: number;
  readonly loadMs: number;
  /** `apply` of one WorkloadEntry update (an EDS-only change), wall clock. */
  readonly foldMs: Summary;
  /**
   * The same, in CPU time of the process (user + system, every thread: GC helpers too). On a shared
   * machine the wall clock also holds the waits for a CPU; this does not.
   */
  readonly foldCpuMs: Summary;
  /** Taking `model.endpoints` and reading the changed host's instances from it. */
  readonly snapshotMs: Summary;
  /** `apply` of one `endpoints` input (a registry's shard of one host, as the orchestrator registry sends). */
  readonly shardFoldMs: Summary;
}

const USAGE = 'usage: npm run bench:fold -- [--sizes 1000,10000,50000] [--changes 200] [--endpoints 2]';

/** Parses the command line; throws naming the bad flag. */
export function parseFoldArgs(argv: readonly string[]): FoldOptions {
  let sizes: number[] = [1000, 10_000, 50_000];
  let changes = 200;
  let endpoints = 2;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = argv[++i];
    if (value === undefined) throw new Error(`${flag}: missing value\n${USAGE}`);
    if (flag === '--sizes') {
      sizes = value.split(',').map((s) => Number(s));
      if (sizes.some((n) => !Number.isInteger(n) || n < 5)) throw new Error(`--sizes: expected integers >= 5, got "${value}"\n${USAGE}`);
    } else if (flag === '--changes') {
      changes = Number(value);
      if (!Number.isInteger(changes) || changes < 1) throw new Error(`--changes: expected an integer >= 1, got "${value}"\n${USAGE}`);
    } else if (flag === '--endpoints') {
      endpoints = Number(value);
      if (!Number.isInteger(endpoints) || endpoints < 1) throw new Error(`--endpoints: expected an integer >= 1, got "${value}"\n${USAGE}`);
    } else throw new Error(`unknown flag "${flag}"\n${USAGE}`);
  }
  return { sizes, changes, endpoints };
}

function cfg(kind: string, name: string, namespace: string, spec: Record<string, unknown>): Config {
  return { apiVersion: 'networking.mesh.io/v1', kind, metadata: { name, namespace, creationTimestamp: '2026-01-01T00:00:00Z' }, spec };
}

function input(c: Config, type: 'added' | 'updated' = 'added'): ModelInput {
  return { kind: 'config', event: { type, key: { kind: c.kind, namespace: c.metadata.namespace, name: c.metadata.name }, object: c, resourceVersion: '1' } };
}

function workloadEntry(svc: number, e: number, ns: string, address: string): Config {
  return cfg('WorkloadEntry', `svc-${svc}-${e}`, ns, { address, labels: { app: `svc-${svc}`, version: e % 2 === 0 ? 'v1' : 'v2' }, serviceAccount: `svc-${svc}-sa` });
}

/** The inputs of a mesh of `services` services with `endpoints` WorkloadEntries each, over 10 namespaces. */
export function meshInputs(services: number, endpoints = 2): ModelInput[] {
  const out: ModelInput[] = [];
  for (let i = 0; i < services; i++) {
    const ns = `ns-${i % 10}`;
    const host = `svc-${i}.${ns}.svc.cluster.local`;
    out.push(input(cfg('ServiceEntry', `svc-${i}`, ns, { hosts: [host], location: 'MESH_INTERNAL', resolution: 'STATIC', ports: [{ number: 8080, name: 'grpc', protocol: 'GRPC' }], workloadSelector: { labels: { app: `svc-${i}` } } })));
    for (let e = 0; e < endpoints; e++) {
      const n = i * endpoints + e;
      out.push(input(workloadEntry(i, e, ns, `10.${1 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`)));
    }
    out.push(input(cfg('VirtualService', `svc-${i}`, ns, { hosts: [host], http: [{ route: [{ destination: { host, subset: 'v1' } }] }] })));
    out.push(input(cfg('DestinationRule', `svc-${i}`, ns, { host, subsets: [{ name: 'v1', labels: { version: 'v1' } }, { name: 'v2', labels: { version: 'v2' } }] })));
  }
  return out;
}

/** Runs every size. */
export function runFold(opts: FoldOptions): FoldRow[] {
  const rows: FoldRow[] = [];
  for (const configs of opts.sizes) {
    const services = Math.max(1, Math.floor(configs / (3 + opts.endpoints)));
    const model = new MeshModel({ domain: 'cluster.local', drainingLabel: '', debounceAfter: 0, debounceMax: 0, enableEdsDebounce: true });
    const t0 = performance.now();
    model.apply(meshInputs(services, opts.endpoints));
    const loadMs = performance.now() - t0;
    const fold: number[] = [];
    const foldCpu: number[] = [];
    const snap: number[] = [];
    const shard: number[] = [];
    const warmup = 20;
    for (let k = 0; k < warmup + opts.changes; k++) {
      const svc = (k * 7919) % services;
      const ns = `ns-${svc % 10}`;
      const host = `svc-${svc}.${ns}.svc.cluster.local`;
      const batch = [input(workloadEntry(svc, 0, ns, `10.250.${(k >> 8) & 255}.${k & 255}`), 'updated')];
      const cpu0 = process.cpuUsage();
      const a = performance.now();
      const req = model.apply(batch);
      const b = performance.now();
      const cpu = process.cpuUsage(cpu0);
      const n = model.endpoints.instances(host).length;
      const c = performance.now();
      if (!req || req.full || n === 0) throw new Error(`change ${k}: want an EDS-only push request and instances of ${host}`);
      const instances = [0, 1].map((e) => ({
        hostname: host, servicePort: 8080, servicePortName: 'grpc', address: `10.251.${k & 255}.${e}`, port: 8080, labels: { app: `svc-${svc}` },
        locality: { region: '', zone: '', subZone: '' }, weight: 1, serviceAccount: '', network: '', health: 'HEALTHY' as const, source: `ServiceEntry/${ns}/orch:svc-${svc}`,
      }));
      const d = performance.now();
      const shardReq = model.apply([{ kind: 'endpoints', hostname: host, shard: 'Orchestrator/bench', instances }]);
      const e = performance.now();
      if (!shardReq || shardReq.full) throw new Error(`shard change ${k}: want an EDS-only push request`);
      if (k >= warmup) {
        fold.push(b - a);
        foldCpu.push((cpu.user + cpu.system) / 1000);
        snap.push(c - b);
        shard.push(e - d);
      }
    }
    rows.push({ configs, services, loadMs, foldMs: summarize(fold), foldCpuMs: summarize(foldCpu), snapshotMs: summarize(snap), shardFoldMs: summarize(shard) });
  }
  return rows;
}

/** The printed table. */
export function formatFold(rows: readonly FoldRow[]): string {
  const f = (v: number | undefined): string => (v === undefined ? '-' : v.toFixed(3));
  const lines = [
    'configs  services  load ms   fold p50  fold p99  fold max  cpu p50  cpu p99  snapshot p50  snapshot p99  shard p50  shard p99',
    '(ms; fold: one WorkloadEntry, wall clock; cpu: the same fold in process CPU time; shard: one endpoints input)',
  ];
  for (const r of rows) {
    lines.push(
      [String(r.configs).padStart(7), String(r.services).padStart(9), r.loadMs.toFixed(0).padStart(8), f(r.foldMs.p50).padStart(9), f(r.foldMs.p99).padStart(9), f(r.foldMs.max).padStart(9), f(r.foldCpuMs.p50).padStart(8), f(r.foldCpuMs.p99).padStart(8), f(r.snapshotMs.p50).padStart(13), f(r.snapshotMs.p99).padStart(13), f(r.shardFoldMs.p50).padStart(10), f(r.shardFoldMs.p99).padStart(10)].join(' '),
    );
  }
  return lines.join('\n');
}
