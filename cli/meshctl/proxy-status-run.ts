/**
 * `meshctl proxy-status` (alias `ps`), as istioctl's: without a target, every proxy connected to every
 * running meshd pod with its sync state per xDS type (SYNCED, NOT SENT, STALE, NACKED, IGNORED when never
 * asked for), from meshd's `/debug/syncz` on the monitoring port through the pod dialer; with a proxy pod
 * (`<pod>[.<namespace>]`), what that proxy holds (its admin `/config_dump`, or `-f` a dump file) against what
 * meshd would send it now (`/debug/config_dump?proxyID=<pod>.<namespace>`), per section: clusters, listeners,
 * routes; differing resources are named.
 */
import { readFileSync } from 'node:fs';
import { parsePodTarget, podHttpGet, ReachError } from '../../inspect/index.js';
import { CliError, type RunContext } from '../framework/index.js';
import { meshctlReach, type MeshctlDeps } from './meshctl-reach.js';
import { MESHD_MONITORING_PORT, meshdPods, podName } from './meshd-pods.js';

interface SynczEntry {
  proxy: string;
  mesh_version?: string;
  types?: { type: string; status: string }[];
}

const COLUMNS = [
  ['CDS', 'type.googleapis.com/envoy.config.cluster.v3.Cluster'],
  ['LDS', 'type.googleapis.com/envoy.config.listener.v3.Listener'],
  ['EDS', 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment'],
  ['RDS', 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration'],
  ['ECDS', 'type.googleapis.com/envoy.config.core.v3.TypedExtensionConfig'],
] as const;

/** `<pod>.<namespace>` of a node id `type~ip~pod.namespace~domain` (the id itself when it has another shape). */
export function proxyName(nodeId: string): string {
  return nodeId.split('~')[2] ?? nodeId;
}

/** The rows of the status table (header first). */
export function statusRows(meshd: readonly { pod: string; syncz: readonly SynczEntry[] }[]): string[][] {
  const rows: string[][] = [];
  for (const m of meshd) {
    for (const p of m.syncz) {
      const status = (typeUrl: string): string => p.types?.find((t) => t.type === typeUrl)?.status ?? 'IGNORED';
      rows.push([proxyName(p.proxy), ...COLUMNS.map(([, t]) => status(t)), m.pod, p.mesh_version || '-']);
    }
  }
  rows.sort((a, b) => a[0]!.localeCompare(b[0]!));
  return [['NAME', ...COLUMNS.map(([c]) => c), 'MESHD', 'VERSION'], ...rows];
}

function table(rows: readonly string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]! + 3))).join('')).join('\n') + '\n';
}

type Dump = { configs?: Record<string, unknown>[] };
const SECTIONS = [
  ['Clusters', 'type.googleapis.com/envoy.admin.v3.ClustersConfigDump', 'dynamicActiveClusters', 'cluster'],
  ['Listeners', 'type.googleapis.com/envoy.admin.v3.ListenersConfigDump', 'dynamicListeners', 'activeState'],
  ['Routes', 'type.googleapis.com/envoy.admin.v3.RoutesConfigDump', 'dynamicRouteConfigs', 'routeConfig'],
] as const;

/** Resources of one section by name, as canonical JSON (fields sorted); accepts snake_case and camelCase dumps. */
function sectionOf(dump: Dump, typeUrl: string, field: string, inner: string): Map<string, string> {
  const camel = (s: string): string => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  const norm = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(norm);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]): [string, unknown] => [k.startsWith('@') ? k : camel(k), norm(x)]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  };
  const out = new Map<string, string>();
  const config = (dump.configs ?? []).map((c) => norm(c) as Record<string, unknown>).find((c) => c['@type'] === typeUrl);
  for (const entry of (config?.[field] as Record<string, unknown>[] | undefined) ?? []) {
    let r = entry[inner] as Record<string, unknown> | undefined;
    if (inner === 'activeState') r = (r as { listener?: Record<string, unknown> } | undefined)?.listener;
    if (!r) continue;
    // NOTE: the version and update time are the proxy's, not the config's.
    out.set(String(r['name'] ?? ''), JSON.stringify(r));
  }
  return out;
}

/** Istio's per-section verdicts: `Clusters Match`, or `Clusters Don't Match` with the differing names. */
export function compareDumps(proxy: Dump, meshd: Dump): string[] {
  const lines: string[] = [];
  for (const [title, typeUrl, field, inner] of SECTIONS) {
    const a = sectionOf(proxy, typeUrl, field, inner);
    const b = sectionOf(meshd, typeUrl, field, inner);
    const names = [...new Set([...a.keys(), ...b.keys()])].sort();
    const differ = names.filter((n) => a.get(n) !== b.get(n));
    if (differ.length === 0) lines.push(`${title} Match`);
    else {
      lines.push(`${title} Don't Match`);
      for (const n of differ) lines.push(`  ${n}: ${!a.has(n) ? 'missing in the proxy' : !b.has(n) ? 'not sent by meshd' : 'differs'}`);
    }
  }
  return lines;
}

/** Runs `meshctl proxy-status`. */
export async function runProxyStatus(ctx: RunContext, deps: MeshctlDeps): Promise<number> {
  const reach = meshctlReach(ctx, deps, 'proxy-status');
  const pods = await meshdPods(reach, { selector: 'app=meshd', revision: ctx.flags.string('revision') });
  if (pods.length === 0) throw new CliError(`no running meshd pod in namespace ${reach.meshNamespace} (label app=meshd)`);
  const target = ctx.args[0];
  if (target === undefined) {
    const meshd: { pod: string; syncz: SynczEntry[] }[] = [];
    for (const pod of pods) {
      try {
        meshd.push({ pod: podName(pod), syncz: JSON.parse(await podHttpGet(reach.dialer, pod, MESHD_MONITORING_PORT, '/debug/syncz')) as SynczEntry[] });
      } catch (e) {
        if (!(e instanceof ReachError) && !(e instanceof SyntaxError)) throw e;
        ctx.io.stderr.write(`meshd pod ${podName(pod)}: ${e.message}\n`);
      }
    }
    ctx.io.stdout.write(table(statusRows(meshd)));
    return 0;
  }
  const t = parsePodTarget(target, reach.namespace);
  const proxyId = `${t.name}.${t.namespace}`;
  let proxyDump: Dump;
  const file = ctx.flags.string('file');
  try {
    proxyDump = JSON.parse(file !== '' ? readFileSync(file, 'utf8') : await podHttpGet(reach.dialer, t, 15000, '/config_dump')) as Dump;
  } catch (e) {
    throw new CliError(`the config of ${proxyId}${file !== '' ? ` in ${file}` : ''}: ${(e as Error).message}`);
  }
  for (const pod of pods) {
    let text: string;
    try {
      text = await podHttpGet(reach.dialer, pod, MESHD_MONITORING_PORT, `/debug/config_dump?proxyID=${encodeURIComponent(proxyId)}`);
    } catch (e) {
      if (!(e instanceof ReachError)) throw e;
      continue;
    }
    ctx.io.stdout.write(`${compareDumps(proxyDump, JSON.parse(text) as Dump).join('\n')}\n`);
    return 0;
  }
  throw new CliError(`no running meshd pod in ${reach.meshNamespace} has a connection from ${proxyId}`);
}
