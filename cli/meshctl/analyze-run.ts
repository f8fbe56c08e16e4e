/**
 * `meshctl analyze [<file>...]`: runs Istio's analyzers (renamed, with Istio's IST codes) over files,
 * directories and standard input (`-`), laid over the live cluster's state unless `--use-orch=false`
 * (files win). Prints findings as `log`, `json` or `yaml`; exits 79 when a finding reaches
 * `--failure-threshold` (as istioctl does), 1 when an input could not be read. With the cluster, the remote
 * clusters of its remote secrets are read for the multi-cluster analyzers (as istioctl analyze does).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  ALL_ANALYZERS,
  DEFAULT_SETTINGS,
  DOCS_BASE,
  OUTPUT_FORMATS,
  SuppressionError,
  atLeast,
  formatDiagnostics,
  mergeResources,
  parseSuppressions,
  resourcesFromText,
  runAnalysis,
  type InputProblem,
  type Level,
  type MultiClusterInputs,
  type OutputFormat,
  type Resource,
} from '../../analysis/index.js';
import type { OrchConfigSource } from '../../controllers/index.js';
import { parseConfigYaml } from '../../crds/index.js';
import { CliError, type RunContext } from '../framework/index.js';
import { EXIT_ANALYZE_FOUND_ISSUES } from './exit-codes.js';

/** The files a path names: itself, `-`, or the YAML/JSON files of a directory (below it too with `-R`), sorted. */
export function inputFiles(path: string, recursive: boolean): string[] {
  if (path === '-') return ['-'];
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    throw new CliError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`);
  }
  if (!st.isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .filter((e) => !e.name.startsWith('.'))
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => {
      const p = join(path, e.name);
      if (e.isDirectory()) return recursive ? inputFiles(p, true) : [];
      return /\.(ya?ml|json)$/.test(e.name) ? [p] : [];
    });
}

/** Reads the `--meshConfigFile` YAML (a MeshConfig object). */
export function readMeshConfigFile(path: string): Record<string, unknown> {
  let text;
  try {
    text = readFileSync(path);
  } catch (e) {
    throw new CliError(`--meshConfigFile ${path}: ${(e as Error).message}`);
  }
  const parsed = parseConfigYaml(text);
  if (!parsed.ok) throw new CliError(`--meshConfigFile ${path}: ${parsed.error}`);
  const doc = parsed.documents[0];
  if (doc?.error !== undefined) throw new CliError(`--meshConfigFile ${path}: ${doc.error}`);
  const v = doc?.value ?? {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new CliError(`--meshConfigFile ${path}: expected a MeshConfig mapping`);
  return v as Record<string, unknown>;
}

function orchSource(ctx: RunContext): OrchConfigSource {
  const env = ctx.io.env;
  const context = ctx.flags.string('context');
  return {
    orchconfig: ctx.flags.string('orchconfig'),
    kubeconfigEnv: env['KUBECONFIG'],
    defaultKubeconfig: join(env['HOME'] ?? homedir(), '.kube', 'config'),
    ...(context ? { context } : {}),
  };
}

function meshConfigOf(resources: readonly Resource[], meshNamespace: string, revision: string): Record<string, unknown> {
  const name = revision === 'default' ? 'mesh' : `mesh-${revision}`;
  const cm = resources.find((r) => r.kind === 'ConfigMap' && r.group === '' && r.namespace === meshNamespace && r.name === name);
  const text = (cm?.obj['data'] as Record<string, unknown> | undefined)?.['mesh'];
  if (typeof text !== 'string') return {};
  const parsed = parseConfigYaml(text);
  const v = parsed.ok ? parsed.documents[0]?.value : undefined;
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** Runs `meshctl analyze` (the tree is in analyze-command.ts). */
export async function runAnalyze(ctx: RunContext): Promise<number> {
  const { flags, io } = ctx;
  const { stdout, stderr } = io;
  if (flags.bool('list-analyzers')) {
    stdout.write('Available analyzers:\n');
    for (const a of ALL_ANALYZERS) stdout.write(`* ${a.name}:\n    ${a.description}\n`);
    return 0;
  }
  const output = flags.string('output');
  if (!(OUTPUT_FORMATS as readonly string[]).includes(output)) throw new CliError(`--output "${output}": expected one of ${OUTPUT_FORMATS.join(', ')}`);
  let suppressions;
  try {
    suppressions = parseSuppressions(flags.strings('suppress'));
  } catch (e) {
    if (e instanceof SuppressionError) throw new CliError(e.message);
    throw e;
  }
  const outputThreshold = String(flags.level('output-threshold')) as Level;
  const failureThreshold = String(flags.level('failure-threshold')) as Level;
  const allNamespaces = flags.bool('all-namespaces');
  const useOrch = flags.bool('use-orch');
  const recursive = flags.bool('recursive');
  const verbose = flags.bool('verbose');
  const meshNamespace = flags.string('meshNamespace');
  const revision = flags.string('revision');
  const started = performance.now();

  let namespace = flags.string('namespace');
  let cluster: Resource[] = [];
  let multiCluster: MultiClusterInputs | undefined;
  const problems: InputProblem[] = [];
  if (useOrch) {
    const timeoutMs = flags.duration('timeout');
    const readStart = Date.now();
    // NOTE: the orchestrator client (kube client, rxjs, undici) loads only when the cluster is read: files alone
    // (`--use-orch=false`, CI's case) skip it.
    const { createOrchClient, DEFAULT_ORCH_CLIENT_OPTIONS, loadOrchKubeConfig, OrchClient, OrchConfigError } = await import('../../controllers/index.js');
    const { readClusterResources, readRemoteClusters, remoteClusterConfigs } = await import('./analyze-cluster-source.js');
    let client;
    try {
      const source = orchSource(ctx);
      const kc = loadOrchKubeConfig(source);
      if (namespace === '') namespace = kc.getContextObject(kc.getCurrentContext())?.namespace ?? '';
      client = createOrchClient(source, { ...DEFAULT_ORCH_CLIENT_OPTIONS, userAgent: 'meshctl' });
    } catch (e) {
      if (e instanceof OrchConfigError) throw new CliError(`${e.message} (or pass --use-orch=false to analyze files only)`);
      throw e;
    }
    try {
      cluster = await readClusterResources(client, timeoutMs);
    } catch (e) {
      throw new CliError(`reading the cluster at ${client.server}: ${(e as Error).message} (or pass --use-orch=false to analyze files only)`);
    }
    // NOTE: as istioctl analyze, the remote clusters of the local cluster's remote secrets are read too (their
    // Services only) for the multi-cluster analyzers; one that cannot be read is reported and skipped.
    const local = client.kubeConfig.getCurrentCluster()?.name ?? 'Orchestrator';
    const secrets = remoteClusterConfigs(cluster, meshNamespace, local);
    // NOTE: one --timeout for the whole cluster read: the remote clusters get what the local read left.
    const left = Math.max(1, timeoutMs - (Date.now() - readStart));
    const remotes = await readRemoteClusters(secrets.configs, (kc) => new OrchClient(kc, { ...DEFAULT_ORCH_CLIENT_OPTIONS, userAgent: 'meshctl' }), left);
    for (const p of [...secrets.problems, ...remotes.problems]) problems.push({ file: `${p.secret} key ${p.key}`, document: 0, message: p.message, unknown: false });
    if (remotes.clusters.length > 0) multiCluster = { local, remotes: remotes.clusters };
  }
  if (namespace === '') namespace = 'default';

  const files: Resource[] = [];
  const paths = ctx.args.flatMap((p) => inputFiles(p, recursive));
  for (const p of paths) {
    const name = p === '-' ? '<stdin>' : p;
    let text;
    try {
      text = p === '-' ? readFileSync(0) : readFileSync(p);
    } catch (e) {
      problems.push({ file: name, document: 0, message: (e as Error).message, unknown: false });
      continue;
    }
    const got = resourcesFromText(text, name, namespace);
    files.push(...got.resources);
    problems.push(...got.problems);
  }
  const resources = mergeResources(cluster, files);
  const meshConfig = flags.string('meshConfigFile') !== '' ? readMeshConfigFile(flags.string('meshConfigFile')) : meshConfigOf(resources, meshNamespace, revision);
  const settings = { ...DEFAULT_SETTINGS, meshConfig, meshNamespace, revision };
  const result = runAnalysis(resources, ALL_ANALYZERS, { settings, suppressions, ...(allNamespaces ? {} : { namespace }), ...(multiCluster ? { multiCluster } : {}) });
  const elapsed = performance.now() - started;

  const reported = problems.filter((p) => !(p.unknown && flags.bool('ignore-unknown')));
  for (const p of reported) stderr.write(`Error: ${p.file}${p.document > 0 ? ` document ${p.document}` : ''}: ${p.message}\n`);
  if (verbose) {
    const remote = multiCluster ? `, ${multiCluster.remotes.reduce((n, c) => n + c.resources.length, 0)} from ${multiCluster.remotes.length} remote cluster(s)` : '';
    stderr.write(`Analyzed ${resources.length} resources (${files.length} from ${paths.length} file(s), ${cluster.length} from the cluster${remote}) with ${result.analyzers.length} analyzers in ${elapsed.toFixed(1)} ms\n`);
  }

  const shown = atLeast(result.diagnostics, outputThreshold);
  const scope = allNamespaces ? 'all namespaces' : `namespace: ${namespace}`;
  const color = flags.bool('color') && io.env['TERM'] !== 'dumb' && (flags.changed('color') || (stdout as { isTTY?: boolean }).isTTY === true);
  if (output === 'log') {
    if (shown.length === 0) stderr.write(`\u2714 No validation issues found when analyzing ${scope}.\n`);
    else stdout.write(formatDiagnostics(shown, 'log', color));
  } else {
    stdout.write(formatDiagnostics(shown, output as OutputFormat));
  }
  if (atLeast(result.diagnostics, failureThreshold).length > 0) {
    stderr.write(`Error: Analyzers found issues when analyzing ${scope}.\nSee ${DOCS_BASE} for more information about causes and resolutions.\n`);
    return EXIT_ANALYZE_FOUND_ISSUES;
  }
  if (reported.length > 0) throw new CliError(`${reported.length} input document(s) could not be analyzed (see above)`);
  return 0;
}
