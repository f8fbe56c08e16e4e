/**
 * `meshctl version` with `--remote` (the default): the client's version, the control plane's (each running
 * meshd pod's `/version` on the monitoring port, reached through the API server's port-forward) and the data
 * plane's (the proxies meshd's `/debug/syncz` lists, by the version in their metadata). No reachable control
 * plane: the client version, the reason on standard error, exit 0 (as istioctl).
 */
import { stringify as toYaml } from 'yaml';
import type { BuildInfo } from '../../core/index.js';
import { podHttpGet, ReachError } from '../../inspect/index.js';
import { CliError, type RunContext } from '../framework/index.js';
import { clientVersion, longVersion, versionOutput, type ClientVersion } from '../common/version-command.js';
import { meshctlReach, type MeshctlDeps } from './meshctl-reach.js';
import { MESHD_MONITORING_PORT, meshdPods, podName } from './meshd-pods.js';

/** One meshd's version (Istio's meshVersion entry). */
export interface MeshVersion {
  readonly Component: 'meshd';
  readonly Pod: string;
  readonly Revision: string;
  readonly Info: ClientVersion;
}

/** One proxy's version (Istio's dataPlaneVersion entry). */
export interface DataPlaneVersion {
  readonly ID: string;
  readonly MeshVersion: string;
}

/** What the control plane told, and what could not be learnt (for standard error). */
export interface RemoteVersions {
  readonly meshVersion: readonly MeshVersion[];
  readonly dataPlaneVersion: readonly DataPlaneVersion[];
  readonly problems: readonly string[];
}

/** Asks every running meshd pod for its version and its proxies'. */
export async function remoteVersions(ctx: RunContext, deps: MeshctlDeps): Promise<RemoteVersions> {
  const problems: string[] = [];
  const meshVersion: MeshVersion[] = [];
  const proxies = new Map<string, string>();
  try {
    const reach = meshctlReach(ctx, deps, 'version --remote');
    const revision = ctx.flags.string('revision');
    const pods = await meshdPods(reach, { selector: 'app=meshd', revision });
    if (pods.length === 0) problems.push(`no running meshd pod in namespace ${reach.meshNamespace} (label app=meshd${revision ? `, revision ${revision}` : ''})`);
    for (const pod of pods) {
      try {
        const info = JSON.parse(await podHttpGet(reach.dialer, pod, MESHD_MONITORING_PORT, '/version')) as BuildInfo;
        meshVersion.push({ Component: 'meshd', Pod: podName(pod), Revision: pod.pod.metadata?.labels?.['mesh.io/rev'] ?? 'default', Info: clientVersion(info) });
        const syncz = JSON.parse(await podHttpGet(reach.dialer, pod, MESHD_MONITORING_PORT, '/debug/syncz')) as { proxy: string; mesh_version?: string }[];
        for (const p of syncz) proxies.set(p.proxy, p.mesh_version ?? '');
      } catch (e) {
        if (!(e instanceof ReachError) && !(e instanceof SyntaxError)) throw e;
        problems.push(`meshd pod ${podName(pod)}: ${e.message}`);
      }
    }
  } catch (e) {
    if (!(e instanceof ReachError) && !(e instanceof CliError)) throw e;
    problems.push(e.message);
  }
  const dataPlaneVersion = [...proxies].sort(([a], [b]) => a.localeCompare(b)).map(([ID, v]) => ({ ID, MeshVersion: v === '' ? 'unknown' : v }));
  return { meshVersion, dataPlaneVersion, problems };
}

/** `1.2.3 (2 proxies), 1.2.2 (1 proxies)`: the versions and how many proxies run each. */
export function dataPlaneSummary(proxies: readonly DataPlaneVersion[]): string {
  if (proxies.length === 0) return 'none';
  const counts = new Map<string, number>();
  for (const p of proxies) counts.set(p.MeshVersion, (counts.get(p.MeshVersion) ?? 0) + 1);
  return [...counts].map(([v, n]) => `${v} (${n} proxies)`).join(', ');
}

/** Runs `meshctl version` with `--remote`. */
export async function runRemoteVersion(ctx: RunContext, deps: MeshctlDeps): Promise<void> {
  const output = versionOutput(ctx.flags);
  const client = clientVersion();
  const remote = await remoteVersions(ctx, deps);
  for (const p of remote.problems) ctx.io.stderr.write(`control plane: ${p}\n`);
  if (output !== '') {
    const doc = { clientVersion: client, ...(remote.meshVersion.length > 0 ? { meshVersion: remote.meshVersion, dataPlaneVersion: remote.dataPlaneVersion } : {}) };
    ctx.io.stdout.write(output === 'json' ? `${JSON.stringify(doc, null, 2)}\n` : toYaml(doc));
    return;
  }
  const short = ctx.flags.bool('short');
  const lines = [`client version: ${short ? client.version : longVersion(client)}`];
  if (remote.meshVersion.length > 0) {
    if (short) lines.push(`control plane version: ${[...new Set(remote.meshVersion.map((m) => m.Info.version))].join(', ')}`);
    else for (const m of remote.meshVersion) lines.push(`control plane version: ${m.Pod}: ${longVersion(m.Info)}`);
    lines.push(`data plane version: ${dataPlaneSummary(remote.dataPlaneVersion)}`);
  }
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
}
