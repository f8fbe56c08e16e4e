/**
 * The soak: a real meshd (`pilot-discovery discovery --configDir`, a child process on loopback ports)
 * under churn for `minutes`: VirtualService edits, endpoint flaps (a ServiceEntry's endpoints added and
 * removed), proxyless clients connecting and leaving while a steady set stays connected. Every
 * `intervalSeconds` it samples meshd's RSS, heap, active handles, open sockets (/proc/<pid>/fd),
 * event-loop delay (p99 and max, from meshd's /metrics) and connected proxies; at the end it stops
 * meshd with SIGTERM and reports whether anything was left open after shutdown.
 */
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, httpGet, startProgram, waitForHttp, type ProgramProcess } from '../../cli/testing/program-process.js';
import { AdsClient } from '../../xds/testing/ads-client.js';
import { TYPE_URL } from '../../xds/index.js';

/** Options of the soak (`npm run soak -- --minutes 60`). */
export interface SoakOptions {
  readonly minutes: number;
  readonly intervalSeconds: number;
  readonly services: number;
  readonly steadyProxies: number;
  /** Proxies that connect and leave each interval. */
  readonly churnProxies: number;
}

/** One sample of meshd. */
export interface SoakSample {
  readonly at: number;
  readonly rssMb: number;
  readonly heapMb: number;
  readonly handles: number;
  readonly sockets: number;
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
  readonly proxies: number;
  /** Streams meshd ended so far (a refused or cut stream is reopened after a backoff, as a proxy does). */
  readonly refused: number;
  readonly edits: number;
  readonly flaps: number;
  readonly connects: number;
}

/** Parses the command line; a bad flag is an error naming it. */
export function parseSoakArgs(argv: readonly string[]): SoakOptions {
  const o = { minutes: 60, intervalSeconds: 10, services: 50, steadyProxies: 100, churnProxies: 20 };
  const names: Record<string, keyof typeof o> = { '--minutes': 'minutes', '--interval-seconds': 'intervalSeconds', '--services': 'services', '--proxies': 'steadyProxies', '--churn-proxies': 'churnProxies' };
  for (let i = 0; i < argv.length; i += 2) {
    const key = names[argv[i]!];
    if (!key) throw new Error(`unknown flag ${argv[i]} (known: ${Object.keys(names).join(', ')})`);
    const n = Number(argv[i + 1]);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${argv[i]} ${argv[i + 1]}: want a positive number`);
    o[key] = n;
  }
  return o;
}

const host = (i: number): string => `svc-${i}.soak.svc.cluster.local`;

function serviceEntry(i: number, endpoints: number): string {
  const eps = Array.from({ length: endpoints }, (_, k) => `    - address: 10.${(i >> 8) & 255}.${i & 255}.${k + 1}\n      labels: { version: v${k % 2} }`).join('\n');
  return `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: svc-${i}, namespace: soak }
spec:
  hosts: [${host(i)}]
  location: MESH_INTERNAL
  ports: [{ number: 8080, name: grpc, protocol: GRPC }]
  resolution: STATIC
  endpoints:
${eps || '    []'}
`.replace('endpoints:\n    []', 'endpoints: []');
}

function virtualService(i: number, weight: number): string {
  return `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: svc-${i}, namespace: soak }
spec:
  hosts: [${host(i)}]
  http:
  - route:
    - { destination: { host: ${host(i)}, subset: v0 }, weight: ${weight} }
    - { destination: { host: ${host(i)}, subset: v1 }, weight: ${100 - weight} }
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: svc-${i}, namespace: soak }
spec:
  host: ${host(i)}
  subsets: [{ name: v0, labels: { version: v0 } }, { name: v1, labels: { version: v1 } }]
`;
}

/** Writes `text` to `path` atomically (a rename), as a ConfigMap update does. */
function writeAtomic(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

function metricValue(text: string, name: string): number {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

function openSockets(pid: number): number {
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) n++;
    } catch {
      // NOTE: an fd closed between readdir and readlink.
    }
  }
  return n;
}

/**
 * A soak proxy: one SotW stream (LDS for its service, CDS), reopened after a capped backoff whenever meshd
 * ends it (PILOT_MAX_REQUESTS_PER_SECOND refuses part of a burst of new streams, as istiod's does).
 */
class SoakProxy {
  #client: AdsClient | undefined;
  #closed = false;
  #attempt = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    readonly address: string,
    readonly n: number,
    readonly services: number,
    readonly refusals: { count: number },
  ) {
    this.#connect();
  }

  #connect(): void {
    const n = this.n;
    const c = new AdsClient({ address: this.address, node: { id: `sidecar~10.1.${(n >> 8) & 255}.${n & 255}~p${n}.soak~soak.svc.cluster.local`, metadata: { GENERATOR: 'grpc', NAMESPACE: 'soak' } }, autoAck: true, keepBodies: false });
    this.#client = c;
    c.subscribe(TYPE_URL.listener, [`${host(n % this.services)}:8080`]);
    c.subscribe(TYPE_URL.cluster);
    void c.waitFor('clusters', () => c.latest(TYPE_URL.cluster), 60_000).then(() => (this.#attempt = 0), () => undefined);
    void c.status.then(() => {
      c.close();
      if (this.#closed) return;
      this.refusals.count++;
      const cap = Math.min(5000, 100 * 2 ** this.#attempt++);
      this.#timer = setTimeout(() => this.#connect(), Math.floor(Math.random() * cap));
    });
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#client?.close();
  }
}

/** The outcome of a soak. */
export interface SoakResult {
  readonly samples: readonly SoakSample[];
  /** meshd's exit code after SIGTERM, and its "still open after shutdown" warning if it printed one. */
  readonly exit: { readonly code: number | string; readonly leftOpen: string | undefined; readonly stopMs: number };
}

/** Runs the soak; `onSample` sees each sample as it is taken. */
export async function runSoak(o: SoakOptions, onSample: (s: SoakSample) => void = () => undefined): Promise<SoakResult> {
  const dir = mkdtempSync(join(tmpdir(), 'mesh-soak-'));
  for (let i = 0; i < o.services; i++) {
    writeFileSync(join(dir, `se-${i}.yaml`), serviceEntry(i, 3));
    writeFileSync(join(dir, `vs-${i}.yaml`), virtualService(i, 50));
  }
  const [grpcPort, http, monitoring, ctrlz] = await freePorts(4);
  const proc: ProgramProcess = startProgram('pilot-discovery', [
    'discovery', `--configDir=${dir}`, `--grpcAddr=127.0.0.1:${grpcPort}`, `--httpAddr=127.0.0.1:${http}`, `--monitoringAddr=127.0.0.1:${monitoring}`,
    '--ctrlz_address=127.0.0.1', `--ctrlz_port=${ctrlz}`, '--secureGRPCAddr=127.0.0.1:0', '--httpsAddr=127.0.0.1:0', '--log_output_level=default:warn',
  ]);
  const address = `127.0.0.1:${grpcPort}`;
  const samples: SoakSample[] = [];
  const clients: SoakProxy[] = [];
  let serial = 0;
  const refusals = { count: 0 };
  const connect = (): SoakProxy => new SoakProxy(address, serial++, o.services, refusals);
  let stopMs = 0;
  let code: number | string = 'not stopped';
  try {
    await waitForHttp(`http://127.0.0.1:${http}/ready`, proc, 60_000);
    for (let i = 0; i < o.steadyProxies; i++) clients.push(connect());
    const counts = { edits: 0, flaps: 0, connects: 0 };
    const end = Date.now() + o.minutes * 60_000;
    let nextSample = Date.now() + o.intervalSeconds * 1000;
    let tick = 0;
    while (Date.now() < end) {
      tick++;
      // Each second: one VirtualService edit and one endpoint flap; each interval: churn proxies.
      const i = tick % o.services;
      writeAtomic(join(dir, `vs-${i}.yaml`), virtualService(i, tick % 101));
      counts.edits++;
      const j = (tick * 7) % o.services;
      writeAtomic(join(dir, `se-${j}.yaml`), serviceEntry(j, tick % 2 === 0 ? 3 : 1 + (tick % 5)));
      counts.flaps++;
      if (tick % o.intervalSeconds === 0) {
        const leaving = clients.splice(o.steadyProxies, o.churnProxies);
        for (const c of leaving) c.close();
        for (let k = 0; k < o.churnProxies; k++) clients.push(connect());
        counts.connects += o.churnProxies;
      }
      await new Promise((r) => setTimeout(r, 1000));
      if (Date.now() >= nextSample) {
        nextSample += o.intervalSeconds * 1000;
        const text = (await httpGet(`http://127.0.0.1:${monitoring}/metrics`)).body;
        const s: SoakSample = {
          at: Math.round((Date.now() - (end - o.minutes * 60_000)) / 1000),
          rssMb: metricValue(text, 'process_resident_memory_bytes') / 2 ** 20,
          heapMb: metricValue(text, 'nodejs_heap_size_used_bytes') / 2 ** 20,
          handles: metricValue(text, 'nodejs_active_handles_total'),
          sockets: openSockets(proc.child.pid!),
          lagP99Ms: metricValue(text, 'nodejs_eventloop_lag_p99_seconds') * 1000,
          lagMaxMs: metricValue(text, 'nodejs_eventloop_lag_max_seconds') * 1000,
          proxies: metricValue(text, 'pilot_xds'),
          refused: refusals.count,
          ...counts,
        };
        samples.push(s);
        onSample(s);
      }
    }
  } finally {
    for (const c of clients) c.close();
    const t = performance.now();
    proc.child.kill('SIGTERM');
    code = await proc.exited;
    stopMs = performance.now() - t;
    rmSync(dir, { recursive: true, force: true });
  }
  const leftOpen = /still open after shutdown[^\n]*/.exec(proc.stderr())?.[0];
  return { samples, exit: { code, leftOpen, stopMs } };
}

/** The first and last thirds' means of a series, and whether it grew by more than `tolerance` (a share). */
export function growth(values: readonly number[], tolerance: number): { first: number; last: number; grew: boolean } {
  const third = Math.max(1, Math.floor(values.length / 3));
  const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);
  const first = mean(values.slice(0, third));
  const last = mean(values.slice(-third));
  return { first, last, grew: values.length >= 3 && last > first * (1 + tolerance) };
}

/** The table of samples and the verdicts. */
export function formatSoak(r: SoakResult): string {
  const head = '    t(s)  rss MB  heap MB  handles  sockets  lag p99 ms  lag max ms  proxies  refused  edits  flaps  connects';
  const rows = r.samples.map((s) =>
    [s.at, s.rssMb.toFixed(1), s.heapMb.toFixed(1), s.handles, s.sockets, s.lagP99Ms.toFixed(1), s.lagMaxMs.toFixed(1), s.proxies, s.refused, s.edits, s.flaps, s.connects]
      .map((v, i) => String(v).padStart([8, 8, 9, 9, 9, 12, 12, 9, 9, 7, 7, 10][i]!))
      .join(''),
  );
  // NOTE: the first third is after warm-up only when the run is long enough; verdicts compare thirds.
  const verdict = (name: string, xs: number[], tol: number): string => {
    const g = growth(xs, tol);
    return `${name}: first third ${g.first.toFixed(1)}, last third ${g.last.toFixed(1)} -> ${g.grew ? `GREW (over ${tol * 100}%)` : 'bounded'}`;
  };
  const s = r.samples;
  return [
    head,
    ...rows,
    verdict('rss MB', s.map((x) => x.rssMb), 0.2),
    verdict('heap MB', s.map((x) => x.heapMb), 0.2),
    verdict('handles', s.map((x) => x.handles), 0.1),
    verdict('sockets', s.map((x) => x.sockets), 0.1),
    `shutdown: SIGTERM -> exit ${r.exit.code} in ${r.exit.stopMs.toFixed(0)} ms; ${r.exit.leftOpen ? `LEFT OPEN: ${r.exit.leftOpen}` : 'nothing left open'}`,
  ].join('\n');
}
