/**
 * `meshctl orch-inject -f FILE`: injects the sidecar into Pods and workload pod templates (Deployments,
 * StatefulSets, DaemonSets, ReplicaSets, Jobs, CronJobs, Lists of them) with the injector meshd's webhook
 * uses, so both give the same pod. `--operatorFileName` takes the injector settings a MeshOperator would
 * install (its meshd release rendered). With none of the injector files and a cluster, the pods go to the
 * cluster's injection webhook of the revision, as istioctl does (orch-inject-remote.ts; `--xds-address`
 * picks a webhook by URL, `--insecure`, `--authority`, `--timeout`; one behind a Service is reached through a
 * port-forward to its pod); when there is none, the injector runs here. Its inputs come from files (`--injectConfigFile`, `--valuesFile`,
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
import { findInjectionWebhook, RemoteInjector, type InjectionWebhook, type ServiceRoute } from './orch-inject-remote.js';
import { ReachError, resolvePodBySelector } from '../../inspect/index.js';
import { meshctlReach, type MeshctlDeps } from './meshctl-reach.js';

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

interface ServiceObject {
  spec?: { selector?: Record<string, string>; ports?: { port?: number; targetPort?: number | string }[] };
}

/**
 * The route to a webhook behind a Service: a running pod its selector picks, on the target port of the
 * webhook's service port, through the pod dialer (the API server's port-forward).
 * @throws CliError naming the Service, its selector or the port when the webhook cannot be reached
 */
async function serviceRoute(ctx: RunContext, deps: MeshctlDeps, webhook: InjectionWebhook): Promise<ServiceRoute> {
  const s = webhook.service!;
  const reach = meshctlReach(ctx, deps, 'reaching the injection webhook');
  const svc = await getOptional<ServiceObject>(meshctlOrchClient(ctx, 'reaching the injection webhook'), `/api/v1/namespaces/${encodeURIComponent(s.namespace)}/services/${encodeURIComponent(s.name)}`);
  if (!svc) throw new CliError(`the injection webhook ${webhook.name} names Service ${s.namespace}/${s.name}, which does not exist`);
  const selector = Object.entries(svc.spec?.selector ?? {}).map(([k, v]) => `${k}=${v}`).join(',');
  if (selector === '') throw new CliError(`Service ${s.namespace}/${s.name} of the injection webhook ${webhook.name} selects no pods (no spec.selector)`);
  let pod;
  try {
    pod = await resolvePodBySelector(reach.api, s.namespace, selector, `service ${s.name}.${s.namespace}`);
  } catch (e) {
    if (e instanceof ReachError) throw new CliError(`the injection webhook ${webhook.name}: ${e.message}`);
    throw e;
  }
  const target = (svc.spec?.ports ?? []).find((p) => p.port === s.port)?.targetPort ?? s.port;
  let port = typeof target === 'number' ? target : Number.NaN;
  if (typeof target === 'string') {
    const containers = ((pod.pod as { spec?: { containers?: { ports?: { name?: string; containerPort?: number }[] }[] } }).spec?.containers ?? []);
    port = containers.flatMap((c) => c.ports ?? []).find((p) => p.name === target)?.containerPort ?? Number.NaN;
    if (Number.isNaN(port)) throw new CliError(`Service ${s.namespace}/${s.name} maps port ${s.port} to the pod port named ${target}, which pod ${pod.name} does not declare`);
  }
  return { dial: () => reach.dialer({ namespace: s.namespace, name: pod.name }, port), serverName: `${s.name}.${s.namespace}.svc`, where: `pod ${pod.name}.${s.namespace} port ${port}` };
}

/**
 * The cluster's injection webhook as a {@link PodInjector} when no injector file is given and a cluster is
 * configured; undefined (said on stderr) when the revision has none.
 */
async function remoteInjectorFor(ctx: RunContext, deps: MeshctlDeps): Promise<PodInjector | undefined> {
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
  const options = { insecure: f.bool('insecure'), authority: f.string('authority'), timeoutMs: f.duration('timeout') };
  if (webhook.url !== undefined) return new RemoteInjector(webhook, options);
  return new RemoteInjector(webhook, options, await serviceRoute(ctx, deps, webhook));
}

/** Runs `meshctl orch-inject`; `deps` carries a test's pod dialer. */
export async function runOrchInject(ctx: RunContext, deps: MeshctlDeps = {}): Promise<number> {
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
  let injector: PodInjector | undefined = await remoteInjectorFor(ctx, deps);
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
