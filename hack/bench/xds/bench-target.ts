/**
 * The server a run measures: meshd (the default) or istiod (the reference), each reading config files or
 * a real API server, with its command line, environment, where the config goes and how client nodes
 * introduce themselves. The harness (run-bench.ts) is the same for both.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientSpec } from './bench-client.js';
import type { BenchOptions } from './bench-options.js';
import { fileConfigSink, KubeConfigSink, type ConfigSink } from './config-sink.js';
import type { Doc } from './config-gen.js';
import { renameForIstio } from './istio-rename.js';
import { DEFAULT_SERVER_CMD } from './server-process.js';
import { BENCH_DEBOUNCE_AFTER } from './shared-floor.js';
import type { BenchCluster } from '../kube-cluster.js';

/** Which server a run measures. */
export type ServerName = 'meshd' | 'istiod';

/** meshd watching the API server (as in production), every listener on a placeholder port. */
export const MESHD_KUBE_CMD =
  'bin/pilot-discovery discovery --orchconfig {kubeconfig} --registries Orchestrator --namespace mesh-system --grpcAddr {grpcAddr} ' +
  '--httpAddr {httpAddr} --monitoringAddr {monitoringAddr} --ctrlz_port {ctrlzPort}';

/**
 * istiod (see ../shared/notes/istiod-reference.md): it needs a kube client even on files (`--registries
 * Kubernetes`); with `--source files` it also reads `--configDir`. No CA, no webhook or secure listeners.
 */
export function istiodCommand(source: BenchOptions['source']): string {
  return (
    '{istiodBin} discovery --kubeconfig {kubeconfig} --registries=Kubernetes ' +
    (source === 'files' ? '--configDir {configDir} ' : '') +
    '--meshConfig {meshConfig} --networksConfig none --domain cluster.local --grpcAddr {grpcAddr} --secureGRPCAddr= --httpsAddr= ' +
    '--httpAddr {httpAddr} --monitoringAddr {monitoringAddr} --ctrlz_port {ctrlzPort} --log_output_level=default:warn,ads:warn,klog:error'
  );
}

/** The mesh config istiod runs with: meshd's defaults, written out. */
export const ISTIOD_MESH_CONFIG = 'trustDomain: cluster.local\nenableAutoMtls: true\noutboundTrafficPolicy:\n  mode: ALLOW_ANY\n';

/** One server under test, ready to be run by `runBench`. */
export interface BenchTarget {
  readonly server: ServerName;
  readonly source: BenchOptions['source'];
  /** Command template with `{placeholders}` (see server-process.ts). */
  readonly command: string;
  /** Placeholders beyond the ports and config dir. */
  readonly placeholders: { readonly kubeconfig: string; readonly meshConfig: string; readonly istiodBin: string };
  readonly env: Readonly<Record<string, string>>;
  /** Where the config goes, given the run's config dir. */
  sink(configDir: string): ConfigSink;
  /** A client's identity as this server expects it. */
  node(spec: ClientSpec): ClientSpec;
  /** Removes what the target created (its mesh config file). */
  cleanup(): void;
}

/** The node of a client renamed for istiod: metadata `ISTIO_VERSION`, label `security.istio.io/tlsMode: istio`. */
export function istiodNode(spec: ClientSpec): ClientSpec {
  return { ...spec, node: renameForIstio(spec.node) };
}

function sinkFor(opts: BenchOptions, cluster: BenchCluster | undefined, rename: ((d: Doc) => Doc) | undefined): (configDir: string) => ConfigSink {
  if (opts.source === 'files') return (dir) => fileConfigSink(dir, opts.writeMode, rename);
  if (!cluster) throw new Error('--source kube: no API server was started');
  return () => new KubeConfigSink(cluster.client, rename);
}

/**
 * meshd's environment: no CA (the benchmark measures xDS), the debounce istiod is given (meshd's default, stated so
 * the two cannot drift apart), real deltas with `--xds delta`, then `--server-env`.
 */
export function meshdEnv(opts: BenchOptions): Record<string, string> {
  return { ENABLE_CA_SERVER: 'false', PILOT_DEBOUNCE_AFTER: BENCH_DEBOUNCE_AFTER, ...(opts.xds === 'delta' ? { MESH_DELTA_XDS: 'true' } : {}), ...opts.serverEnv };
}

/** meshd: `--server-cmd` on files (the default, unchanged), or watching the API server with `--source kube`. */
export function meshdTarget(opts: BenchOptions, cluster: BenchCluster | undefined): BenchTarget {
  const custom = opts.serverCmd !== DEFAULT_SERVER_CMD;
  return {
    server: 'meshd',
    source: opts.source,
    command: opts.source === 'kube' && !custom ? MESHD_KUBE_CMD : opts.serverCmd,
    placeholders: { kubeconfig: cluster?.kubeconfigPath ?? '', meshConfig: '', istiodBin: opts.istiodBin },
    env: meshdEnv(opts),
    sink: sinkFor(opts, cluster, undefined),
    node: (s) => s,
    cleanup: () => undefined,
  };
}

/** istiod, which always needs the API server; configs and nodes renamed to Istio's names. */
export function istiodTarget(opts: BenchOptions, cluster: BenchCluster): BenchTarget {
  const dir = mkdtempSync(join(tmpdir(), 'mesh-bench-istiod-'));
  const meshConfig = join(dir, 'mesh.yaml');
  writeFileSync(meshConfig, ISTIOD_MESH_CONFIG);
  return {
    server: 'istiod',
    source: opts.source,
    command: istiodCommand(opts.source),
    placeholders: { kubeconfig: cluster.kubeconfigPath, meshConfig, istiodBin: opts.istiodBin },
    // NOTE: the same push debounce as meshd's default; no CA (as for meshd), no leader-elected extras' noise in the log.
    env: { POD_NAMESPACE: 'istio-system', POD_NAME: 'istiod-bench', ENABLE_CA_SERVER: 'false', PILOT_DEBOUNCE_AFTER: BENCH_DEBOUNCE_AFTER, ...(opts.xds === 'delta' ? { ISTIO_DELTA_XDS: 'true' } : {}), ...opts.serverEnv },
    sink: sinkFor(opts, cluster, (d) => renameForIstio(d)),
    node: istiodNode,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
