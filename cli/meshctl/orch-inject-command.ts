/**
 * `meshctl orch-inject -f FILE`: injects the sidecar into Pods and workload pod templates (Deployments,
 * StatefulSets, DaemonSets, ReplicaSets, Jobs, CronJobs, Lists of them) with the injector meshd's webhook
 * uses, so both give the same pod. `--operatorFileName` takes the injector settings a MeshOperator would
 * install (its meshd release rendered). With none of the injector files and a cluster, the pods go to the
 * cluster's injection webhook of the revision, as istioctl does (orch-inject-remote.ts; `--xds-address`
 * picks a webhook by URL, `--insecure`, `--authority`, `--timeout`); when there is none, or only one behind a
 * Service, the injector runs here. Its inputs come from files (`--injectConfigFile`, `--valuesFile`,
 * `--meshConfigFile`; a ConfigMap manifest or its bare `config`/`values`/`mesh` text) or, for those not
 * given, from the cluster's ConfigMaps `mesh-sidecar-injector[-<rev>]` and `--meshConfigMapName[-<rev>]` in
 * `--meshNamespace`; with neither, the built-in defaults (said on stderr). `-o` writes a file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadEnv } from '../../core/index.js';
import { injectManifests, injectorSettingsFrom, InjectionConfigError, InjectionError, ManifestError, parseYamlDocument, SidecarInjector, type InjectorTexts, type PodInjector } from '../../webhooks/index.js';
import { CliError, type RunContext } from '../framework/index.js';
import { MeshOperatorError, renderMeshOperator, resolveMeshOperator } from '../../install/index.js';
import { getOptional, meshctlOrchClient, meshctlOrchSource } from './meshctl-orch.js';
import { findInjectionWebhook, RemoteInjector } from './orch-inject-remote.js';

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

/**
 * The injector's texts of a MeshOperator file (`--operatorFileName`), as istioctl reads an IstioOperator:
 * its meshd release is rendered, and the `mesh-sidecar-injector` and `mesh` ConfigMaps of the revision are
 * read from the output.
 */
function injectorTextsOfOperator(file: string, revision: string): InjectorTexts {
  let releases;
  try {
    const resolved = resolveMeshOperator({ files: [file], ...(revision !== '' ? { revision } : {}) });
    releases = renderMeshOperator(resolved.spec, { components: ['pilot'] });
  } catch (e) {
    if (e instanceof MeshOperatorError) throw new CliError(`--operatorFileName ${file}: ${e.message}`);
    throw e;
  }
  const suffix = revision !== '' && revision !== 'default' ? `-${revision}` : '';
  const data = (name: string): Record<string, string> | undefined => {
    for (const r of releases) {
      for (const m of r.rendered.manifests) {
        if (m.kind !== 'ConfigMap') continue;
        const doc = parseYamlDocument(m.content, m.source) as (ConfigMap & { metadata?: { name?: string } }) | null;
        if (doc?.metadata?.name === name) return doc.data ?? {};
      }
    }
    return undefined;
  };
  const injector = data(`mesh-sidecar-injector${suffix}`);
  const mesh = data(`mesh${suffix}`);
  if (!injector || !mesh) throw new CliError(`--operatorFileName ${file}: the rendered meshd release has no ConfigMap mesh-sidecar-injector${suffix} and mesh${suffix} (is components.pilot disabled?)`);
  return { config: injector['config'] ?? '', values: injector['values'] ?? '', meshConfig: mesh['mesh'] ?? '' };
}

/** The injector's texts from the flags' files, then the cluster for what they leave out. */
export async function injectorTextsFor(ctx: RunContext): Promise<InjectorTexts> {
  const f = ctx.flags;
  if (f.string('operatorFileName') !== '') return injectorTextsOfOperator(f.string('operatorFileName'), f.string('revision'));
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

/**
 * The cluster's injection webhook as a {@link PodInjector} when no injector file is given and a cluster is
 * configured; undefined (said on stderr) when the revision has no webhook at a URL.
 */
async function remoteInjectorFor(ctx: RunContext): Promise<PodInjector | undefined> {
  const f = ctx.flags;
  if (['injectConfigFile', 'valuesFile', 'meshConfigFile', 'operatorFileName'].some((n) => f.string(n) !== '') || !meshctlOrchSource(ctx)) return undefined;
  const client = meshctlOrchClient(ctx, 'finding the injection webhook');
  const revision = f.string('revision') || 'default';
  const address = f.string('xds-address').replace(/:\d+$/, '');
  const webhook = await findInjectionWebhook(client, revision, address);
  if (!webhook) {
    ctx.io.stderr.write(`no injection webhook for revision ${revision} (a MutatingWebhookConfiguration labelled mesh.io/rev=${revision}${address !== '' ? ` with a URL containing ${address}` : ''}; --webhookConfig ${f.string('webhookConfig')}): injecting with the injector ConfigMaps\n`);
    return undefined;
  }
  if (webhook.url === undefined) {
    const s = webhook.service!;
    ctx.io.stderr.write(`not implemented yet: calling the injection webhook ${webhook.name} through its Service ${s.namespace}/${s.name} (a port-forward); injecting with the injector ConfigMaps\n`);
    return undefined;
  }
  return new RemoteInjector({ ...webhook, url: webhook.url }, { insecure: f.bool('insecure'), authority: f.string('authority'), timeoutMs: f.duration('timeout') });
}

/** Runs `meshctl orch-inject`. */
export async function runOrchInject(ctx: RunContext): Promise<number> {
  const f = ctx.flags;
  if (f.string('operatorFileName') !== '' && ['injectConfigFile', 'valuesFile', 'meshConfigFile'].some((n) => f.string(n) !== '')) {
    throw new CliError('--operatorFileName takes the injector settings from a MeshOperator: give it alone, or --injectConfigFile, --valuesFile and --meshConfigFile');
  }
  // NOTE: these flags reach a central meshd over xDS (istioctl's central options), which orch-inject does not use.
  const xdsOnly = ['cert-dir', 'plaintext', 'xds-label', 'xds-port'].filter((n) => f.changed(n));
  if (xdsOnly.length > 0) {
    throw new CliError(`not implemented yet: meshctl orch-inject through a central meshd over xDS (${xdsOnly.map((n) => `--${n}`).join(', ')}); without injector files the cluster's injection webhook is called, or give --injectConfigFile, --valuesFile and --meshConfigFile`);
  }
  const file = f.string('filename');
  if (file === '') throw new CliError('give the manifest to inject with -f (a file, or - for standard input)');
  const input = readInput(file, 'filename');
  let injector: PodInjector | undefined = await remoteInjectorFor(ctx);
  if (!injector) {
    const env = loadEnv('meshctl', ctx.io.env);
    try {
      const texts = await injectorTextsFor(ctx);
      injector = new SidecarInjector(injectorSettingsFrom(texts, { revision: f.string('revision'), nativeSidecars: env.bool('ENABLE_NATIVE_SIDECARS') }));
    } catch (e) {
      if (e instanceof InjectionConfigError) throw new CliError(e.message);
      throw e;
    }
  }
  let result;
  try {
    result = await injectManifests(input, injector, file === '-' ? '<stdin>' : file);
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
