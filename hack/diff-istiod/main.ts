// npm run diff:istiod -- [--istiod-bin PATH] [--json FILE] [--keep]
// The differential check against istiod (issue 13, out of CI): the same configs (examples/bookinfo-sidecar
// and hack/diff-istiod/testdata; renamed to istio.io for istiod) go to meshd (files) and istiod (files,
// beside a real kube-apiserver, which it needs); the same sidecars fetch their xDS from each over ADS;
// every request of diff-cases.ts is walked through the request simulator on both configurations, and
// the outcomes and the listener/cluster/route name sets are compared. Then the orchestrator pass: both
// servers read only the API server (Kubernetes Services and EndpointSlices of diff-cases.ts ORCH_OBJECTS),
// once per environment of ORCH_PASSES. Prints the report; exit 0 even
// when they differ (differences are read, many are by design), 2 on a usage error, 1 when a run failed.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { ISTIOD_MESH_CONFIG, istiodCommand, MESHD_KUBE_CMD } from '../bench/xds/bench-target.js';
import { renameForIstio } from '../bench/xds/istio-rename.js';
import { fillCommand, ServerProcess } from '../bench/xds/server-process.js';
import { startBenchCluster, type BenchCluster } from '../bench/kube-cluster.js';
import { freePorts } from '../../xds/testing/free-port.js';
import type { ProxyConfig } from '../../xds/index.js';
import { compareProxyConfigs, type ProxyComparison } from './compare-configs.js';
import { DIFF_PROXIES, istiodDoc, LISTENER_OPTIONS_ENV, NAMESPACES, ORCH_OBJECTS, ORCH_PASSES, ORCH_PROXIES, readCaseDocs, SERVER_ENV, type DiffProxy } from './diff-cases.js';
import { fetchProxyConfig } from './fetch-proxy-config.js';
import { formatDiffReport } from './diff-report.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MESHD_CMD =
  'bin/pilot-discovery discovery --configDir {configDir} --registries Mock --grpcAddr {grpcAddr} --httpAddr {httpAddr} ' +
  '--monitoringAddr {monitoringAddr} --ctrlz_port {ctrlzPort}';

type Server = 'meshd' | 'istiod';

/** How a server runs: its config source (files, or the API server alone) and extra environment. */
interface RunMode {
  readonly source: 'files' | 'kube';
  readonly env: Readonly<Record<string, string>>;
  readonly proxies: readonly DiffProxy[];
}

async function runServer(
  server: Server,
  dirs: { configDir: string; meshConfig: string },
  cluster: BenchCluster,
  istiodBin: string,
  log: (l: string) => void,
  mode: RunMode = { source: 'files', env: SERVER_ENV, proxies: DIFF_PROXIES },
): Promise<ProxyConfig[]> {
  const [grpc, http, mon, ctrlz] = (await freePorts(4)) as [number, number, number, number];
  const meshdCmd = mode.source === 'files' ? MESHD_CMD : MESHD_KUBE_CMD;
  const command = fillCommand(server === 'meshd' ? meshdCmd : istiodCommand(mode.source), {
    configDir: dirs.configDir,
    grpcAddr: `127.0.0.1:${grpc}`,
    grpcPort: String(grpc),
    httpAddr: `127.0.0.1:${http}`,
    monitoringAddr: `127.0.0.1:${mon}`,
    ctrlzPort: String(ctrlz),
    kubeconfig: cluster.kubeconfigPath,
    meshConfig: dirs.meshConfig,
    istiodBin,
  });
  const env: Record<string, string> =
    server === 'meshd'
      ? { ENABLE_CA_SERVER: 'false', ...mode.env }
      : { POD_NAMESPACE: 'istio-system', POD_NAME: 'istiod-diff', ENABLE_CA_SERVER: 'false', PILOT_DEBOUNCE_AFTER: '100ms', ...mode.env };
  log(`${server}: starting`);
  const proc = ServerProcess.spawn(command, env, REPO_ROOT);
  try {
    await proc.waitForPort(grpc, 120_000);
    await proc.waitForReady(`127.0.0.1:${http}`, 120_000);
    const out: ProxyConfig[] = [];
    for (const p of mode.proxies) {
      log(`${server}: fetching ${p.name}`);
      const node = server === 'meshd' ? p.node : renameForIstio(p.node);
      out.push(await fetchProxyConfig({ address: `127.0.0.1:${grpc}`, node, quietMs: server === 'istiod' ? 3000 : 1500 }));
    }
    return out;
  } catch (err) {
    throw new Error(`${server}: ${(err as Error).message}\n--- ${server} output (last 3000 chars) ---\n${proc.output.slice(-3000)}`);
  } finally {
    await proc.stop();
  }
}

async function main(argv: readonly string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        'istiod-bin': { type: 'string', default: join(homedir(), '.cache/mesh/istiod/pilot-discovery') },
        json: { type: 'string' },
        keep: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (e) {
    process.stderr.write(`diff:istiod: ${(e as Error).message}\n`);
    return 2;
  }
  const istiodBin = values['istiod-bin'];
  if (!existsSync(istiodBin)) {
    process.stderr.write(`diff:istiod: no istiod binary at ${istiodBin} (build it as ../shared/notes/istiod-reference.md says, or pass --istiod-bin PATH)\n`);
    return 2;
  }
  const log = (line: string): void => void process.stderr.write(`[diff:istiod ${new Date().toISOString().slice(11, 23)}] ${line}\n`);
  const work = mkdtempSync(join(tmpdir(), 'mesh-diff-istiod-'));
  const meshdDir = join(work, 'meshd');
  const istiodDir = join(work, 'istiod');
  for (const d of [meshdDir, istiodDir]) mkdirSync(d);
  const meshConfig = join(work, 'mesh.yaml');
  writeFileSync(meshConfig, ISTIOD_MESH_CONFIG);
  for (const { file, docs } of readCaseDocs(REPO_ROOT)) {
    const name = file.replaceAll('/', '_');
    // NOTE: YAML 1.1 output quotes strings such as "off" and "yes", which both servers read as booleans unquoted.
    writeFileSync(join(meshdDir, name), docs.map((d) => stringify(d, { version: '1.1' })).join('---\n'));
    writeFileSync(join(istiodDir, name), docs.map((d) => stringify(istiodDoc(d), { version: '1.1' })).join('---\n'));
  }
  let cluster: BenchCluster | undefined;
  try {
    cluster = await startBenchCluster([...NAMESPACES, 'istio-system', 'mesh-system'], log);
    const meshd = await runServer('meshd', { configDir: meshdDir, meshConfig }, cluster, istiodBin, log);
    const istiod = await runServer('istiod', { configDir: istiodDir, meshConfig }, cluster, istiodBin, log);
    const comparisons: { proxy: string; comparison: ProxyComparison }[] = DIFF_PROXIES.map((p, i) => ({
      proxy: p.name,
      comparison: compareProxyConfigs(meshd[i]!, istiod[i]!, p.requests),
    }));
    {
      const mode: RunMode = { source: 'files', env: LISTENER_OPTIONS_ENV, proxies: DIFF_PROXIES };
      const m = await runServer('meshd', { configDir: meshdDir, meshConfig }, cluster, istiodBin, log, mode);
      const i = await runServer('istiod', { configDir: istiodDir, meshConfig }, cluster, istiodBin, log, mode);
      meshd.push(...m);
      istiod.push(...i);
      DIFF_PROXIES.forEach((p, k) => comparisons.push({ proxy: `${p.name}; listener options ${Object.keys(LISTENER_OPTIONS_ENV).filter((e) => !(e in SERVER_ENV)).join(', ')}`, comparison: compareProxyConfigs(m[k]!, i[k]!, p.requests) }));
    }
    // NOTE: the orchestrator pass comes after the files pass, so its Services do not show in the files pass (istiod reads the API server there too).
    for (const o of ORCH_OBJECTS) await cluster.client.request('POST', o.path, { body: o.body });
    for (const pass of ORCH_PASSES) {
      const mode: RunMode = { source: 'kube', env: pass.env, proxies: ORCH_PROXIES };
      const m = await runServer('meshd', { configDir: meshdDir, meshConfig }, cluster, istiodBin, log, mode);
      const i = await runServer('istiod', { configDir: istiodDir, meshConfig }, cluster, istiodBin, log, mode);
      meshd.push(...m);
      istiod.push(...i);
      ORCH_PROXIES.forEach((p, k) => comparisons.push({ proxy: `${p.name}; ${pass.name}`, comparison: compareProxyConfigs(m[k]!, i[k]!, p.requests) }));
    }
    process.stdout.write(formatDiffReport(comparisons));
    if (values.json) writeFileSync(values.json, JSON.stringify({ comparisons, meshd, istiod }, null, 1));
    return 0;
  } catch (err) {
    process.stderr.write(`diff:istiod: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await cluster?.stop();
    if (values.keep) log(`config dirs kept in ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

process.exitCode = await main(process.argv.slice(2));
