/**
 * `meshctl orch-inject -f FILE`: injects the sidecar into Pods and workload pod templates (Deployments,
 * StatefulSets, DaemonSets, ReplicaSets, Jobs, CronJobs, Lists of them) with the injector meshd's webhook
 * uses, so both give the same pod. Inputs come from files (`--injectConfigFile`, `--valuesFile`,
 * `--meshConfigFile`; a ConfigMap manifest or its bare `config`/`values`/`mesh` text) or, for those not
 * given, from the cluster's ConfigMaps `mesh-sidecar-injector[-<rev>]` and `--meshConfigMapName[-<rev>]` in
 * `--meshNamespace`; with neither, the built-in defaults (said on stderr). `-o` writes a file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadEnv } from '../../core/index.js';
import { injectManifests, injectorSettingsFrom, InjectionConfigError, InjectionError, ManifestError, parseYamlDocument, SidecarInjector, type InjectorTexts } from '../../webhooks/index.js';
import { CliError, type RunContext } from '../framework/index.js';
import { getOptional, meshctlOrchClient, meshctlOrchSource } from './meshctl-orch.js';

interface ConfigMap {
  data?: Record<string, string>;
}

function readInput(path: string, flagName: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (e) {
    throw new CliError(`--${flagName} ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
}

/** The `key` of a ConfigMap manifest, or the text itself when it is not a ConfigMap. */
function configMapKey(text: string, key: string, flagName: string): { value: string; data?: Record<string, string> } {
  let doc: unknown;
  try {
    doc = parseYamlDocument(text, `--${flagName}`);
  } catch {
    return { value: text };
  }
  if (typeof doc === 'object' && doc !== null && (doc as { kind?: unknown }).kind === 'ConfigMap') {
    const data = ((doc as ConfigMap).data ?? {});
    if (typeof data[key] !== 'string') throw new CliError(`--${flagName}: the ConfigMap has no data.${key}`);
    return { value: data[key], data };
  }
  return { value: text };
}

/** The injector's texts from the flags' files, then the cluster for what they leave out. */
export async function injectorTextsFor(ctx: RunContext): Promise<InjectorTexts> {
  const f = ctx.flags;
  const texts: { config?: string; values?: string; meshConfig?: string } = {};
  if (f.string('injectConfigFile') !== '') {
    const c = configMapKey(readInput(f.string('injectConfigFile'), 'injectConfigFile'), 'config', 'injectConfigFile');
    texts.config = c.value;
    if (c.data?.['values'] !== undefined && f.string('valuesFile') === '') texts.values = c.data['values'];
  }
  if (f.string('valuesFile') !== '') texts.values = configMapKey(readInput(f.string('valuesFile'), 'valuesFile'), 'values', 'valuesFile').value;
  if (f.string('meshConfigFile') !== '') texts.meshConfig = configMapKey(readInput(f.string('meshConfigFile'), 'meshConfigFile'), 'mesh', 'meshConfigFile').value;
  const missing = (['config', 'values', 'meshConfig'] as const).filter((k) => texts[k] === undefined);
  if (missing.length === 0) return texts;
  if (!meshctlOrchSource(ctx)) {
    ctx.io.stderr.write(`no cluster configured and no ${missing.map((m) => ({ config: '--injectConfigFile', values: '--valuesFile', meshConfig: '--meshConfigFile' })[m]).join(', ')}: using the built-in defaults\n`);
    return texts;
  }
  const client = meshctlOrchClient(ctx, 'reading the injector configuration');
  const ns = encodeURIComponent(f.string('meshNamespace'));
  const rev = f.string('revision');
  const suffix = rev !== '' && rev !== 'default' ? `-${rev}` : '';
  if (texts.config === undefined || texts.values === undefined) {
    const name = `mesh-sidecar-injector${suffix}`;
    const cm = await getOptional<ConfigMap>(client, `/api/v1/namespaces/${ns}/configmaps/${name}`);
    if (!cm) throw new CliError(`ConfigMap ${f.string('meshNamespace')}/${name} not found: install the mesh, or give --injectConfigFile and --valuesFile`);
    texts.config ??= cm.data?.['config'];
    texts.values ??= cm.data?.['values'];
  }
  if (texts.meshConfig === undefined) {
    const name = `${f.string('meshConfigMapName')}${suffix}`;
    const cm = await getOptional<ConfigMap>(client, `/api/v1/namespaces/${ns}/configmaps/${name}`);
    if (!cm) throw new CliError(`ConfigMap ${f.string('meshNamespace')}/${name} not found: give --meshConfigFile`);
    texts.meshConfig = cm.data?.['mesh'];
  }
  return texts;
}

/** Runs `meshctl orch-inject`. */
export async function runOrchInject(ctx: RunContext): Promise<number> {
  const f = ctx.flags;
  if (f.string('operatorFileName') !== '') throw new CliError('not implemented yet: meshctl orch-inject --operatorFileName (MeshOperator resources); give --injectConfigFile, --valuesFile and --meshConfigFile instead');
  // NOTE: these flags choose meshd's remote injection over xDS, which is not built: refuse rather than inject locally.
  const remote = ['authority', 'cert-dir', 'insecure', 'plaintext', 'timeout', 'webhookConfig', 'xds-address', 'xds-label', 'xds-port'].filter((n) => f.changed(n));
  if (remote.length > 0) {
    throw new CliError(`not implemented yet: meshctl orch-inject remote injection through meshd (${remote.map((n) => `--${n}`).join(', ')}); inject locally with --injectConfigFile, --valuesFile and --meshConfigFile, or from the cluster's ConfigMaps`);
  }
  const file = f.string('filename');
  if (file === '') throw new CliError('give the manifest to inject with -f (a file, or - for standard input)');
  const input = readInput(file, 'filename');
  const env = loadEnv('meshctl', ctx.io.env);
  let injector: SidecarInjector;
  try {
    const texts = await injectorTextsFor(ctx);
    injector = new SidecarInjector(injectorSettingsFrom(texts, { revision: f.string('revision'), nativeSidecars: env.bool('ENABLE_NATIVE_SIDECARS') }));
  } catch (e) {
    if (e instanceof InjectionConfigError) throw new CliError(e.message);
    throw e;
  }
  let result;
  try {
    result = injectManifests(input, injector, file === '-' ? '<stdin>' : file);
  } catch (e) {
    if (e instanceof ManifestError || e instanceof InjectionError || e instanceof InjectionConfigError) throw new CliError(e.message);
    throw e;
  }
  for (const o of result.outcomes) if (!o.injected) ctx.io.stderr.write(`skipped ${o.what}: ${o.reason ?? ''}\n`);
  const out = f.string('output');
  if (out !== '') {
    try {
      writeFileSync(out, result.text);
    } catch (e) {
      throw new CliError(`--output ${out}: ${(e as Error).message}`);
    }
  } else ctx.io.stdout.write(result.text);
  return 0;
}
