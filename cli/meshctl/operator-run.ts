/**
 * The bodies of `meshctl operator dump|init|remove`. The operator's manifest comes from one place
 * (operator/operator-manifest.ts); init applies it (and with `-f` a MeshOperator) with the install/
 * engine and waits for it; remove finds the operator's objects by their labels and deletes them, with
 * `--purge` after deleting every MeshOperator (which the running operator finalizes by removing what it
 * installed), so nothing is left behind.
 */
import { readFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { systemClock } from '../../core/index.js';
import { COMPONENT_LABEL, ManifestApplier, MESH_OPERATOR_API_VERSION, MeshOperatorError, objectRef, readMeshOperatorFile, resolveMeshOperator, REVISION_LABEL, revisionLabelValue, type LiveObject, type ManifestObject } from '../../install/index.js';
import { MESH_OPERATOR_CRD_NAME, OPERATOR_COMPONENT, operatorImage, operatorManifest, type OperatorManifestOptions } from '../../operator/index.js';
import { unmarshalYAML } from '../../templates/index.js';
import { CliError, type FlagValues, type RunContext } from '../framework/index.js';
import { confirm, interruptSignal, rethrowApplyFailure } from './install-run.js';
import { MESH_NAMESPACE } from './install-spec.js';
import { getOptional, meshctlOrchClient } from './meshctl-orch.js';

/** How long init waits for the operator to be ready, and remove for objects to be gone. */
const WAIT_MS = 300_000;
const MESH_OPERATORS_PATH = '/apis/install.mesh.io/v1alpha1/meshoperators';

type Obj = Record<string, unknown>;
const isMap = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The manifest options of dump and init. @throws CliError for `--manifests`/`--charts` (no operator chart exists) */
export function operatorManifestOptions(flags: FlagValues): OperatorManifestOptions {
  for (const f of ['manifests', 'charts']) {
    if (flags.string(f) !== '') throw new CliError(`not implemented yet: --${f} for meshctl operator: the operator's manifest is built in code (no operator chart ships under manifests/)`);
  }
  return {
    namespace: flags.string('operatorNamespace'),
    revision: flags.string('revision'),
    hub: flags.string('hub'),
    tag: flags.string('tag'),
    imagePullSecrets: flags.strings('imagePullSecrets'),
    watchedNamespaces: flags.string('watchedNamespaces'),
  };
}

/** The `run` of `meshctl operator dump`. */
export function runOperatorDump(ctx: RunContext): Promise<number> {
  const format = ctx.flags.string('output');
  if (format !== 'yaml' && format !== 'json') throw new CliError(`--output ${format}: must be one of json|yaml`);
  const objects = operatorManifest(operatorManifestOptions(ctx.flags)).map((o) => o.object);
  if (format === 'json') ctx.io.stdout.write(`${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }, null, 2)}\n`);
  else ctx.io.stdout.write(objects.map((o) => `---\n${stringify(o, { lineWidth: 0 })}`).join(''));
  return Promise.resolve(0);
}

/**
 * The MeshOperator of `-f` as an object to apply (namespace `mesh-system` when the file names none),
 * validated as install validates it.
 * @throws CliError naming the file and the field
 */
export function meshOperatorToApply(file: string): ManifestObject {
  try {
    resolveMeshOperator({ files: [file] });
    const spec = readMeshOperatorFile(file);
    const doc = unmarshalYAML(readFileSync(file, 'utf8'));
    const meta = isMap(doc) && isMap(doc['metadata']) ? doc['metadata'] : {};
    const name = typeof meta['name'] === 'string' && meta['name'] !== '' ? meta['name'] : 'installed-state';
    const namespace = typeof meta['namespace'] === 'string' && meta['namespace'] !== '' ? meta['namespace'] : MESH_NAMESPACE;
    const object = { apiVersion: MESH_OPERATOR_API_VERSION, kind: 'MeshOperator', metadata: { name, namespace }, spec };
    return { component: 'MeshOperator', apiVersion: MESH_OPERATOR_API_VERSION, kind: 'MeshOperator', name, namespace, object };
  } catch (e) {
    if (e instanceof MeshOperatorError) throw new CliError(e.message);
    throw e;
  }
}

/** The `run` of `meshctl operator init`. */
export async function runOperatorInit(ctx: RunContext): Promise<number> {
  const { flags, io } = ctx;
  const options = operatorManifestOptions(flags);
  const objects = operatorManifest(options);
  const file = flags.string('filename');
  const cr = file === '' ? undefined : meshOperatorToApply(file);
  const client = meshctlOrchClient(ctx, 'meshctl operator init');
  io.stdout.write(`Installing operator controller in namespace: ${options.namespace} using image: ${operatorImage(options)}\nOperator controller will watch namespaces: ${options.watchedNamespaces}\n`);
  const interrupt = interruptSignal();
  try {
    // NOTE: the MeshOperator CRD may already be on the cluster, applied by the base chart, an earlier init or
    // `kubectl`, under another field manager: a CRD is one cluster-wide definition, and crds/ holds the current
    // one, so init takes its fields over (as `kubectl apply --server-side --force-conflicts`), and only its.
    const isCrd = (o: ManifestObject): boolean => o.kind === 'CustomResourceDefinition';
    await new ManifestApplier(client, { readinessTimeoutMs: WAIT_MS, signal: interrupt.signal, force: true }).applyObjects(objects.filter(isCrd));
    const applier = new ManifestApplier(client, { readinessTimeoutMs: WAIT_MS, signal: interrupt.signal });
    await applier.apply(objects.filter((o) => !isCrd(o)));
    io.stdout.write('✔ Mesh operator installed\n');
    if (cr) {
      await applier.apply([cr]);
      io.stdout.write(`✔ ${objectRef(cr)} applied: the operator installs it\n`);
    }
    return 0;
  } catch (e) {
    return rethrowApplyFailure(e, interrupt);
  } finally {
    interrupt.dispose();
  }
}

const refOf = (l: LiveObject): string => objectRef({ kind: l.info.kind, name: l.name, namespace: l.namespace });

/** The `run` of `meshctl operator remove`. */
export async function runOperatorRemove(ctx: RunContext): Promise<number> {
  const { flags, io } = ctx;
  const purge = flags.bool('purge');
  const revision = flags.string('revision');
  const namespace = flags.string('operatorNamespace');
  if (!purge && revision === '') throw new CliError('at least one of the --revision or --purge flags must be set');
  const selector = purge ? `${COMPONENT_LABEL}=${OPERATOR_COMPONENT}` : `${COMPONENT_LABEL}=${OPERATOR_COMPONENT},${REVISION_LABEL}=${revisionLabelValue(revision)}`;
  const client = meshctlOrchClient(ctx, 'meshctl operator remove');
  const interrupt = interruptSignal();
  try {
    const applier = new ManifestApplier(client, { readinessTimeoutMs: 0, signal: interrupt.signal });
    // NOTE: the MeshOperator CRD is shared by every revision's operator: only --purge removes it.
    const find = async (): Promise<LiveObject[]> =>
      (await applier.findLive(selector)).filter((l) => (!l.info.namespaced || l.namespace === namespace) && (purge || l.name !== MESH_OPERATOR_CRD_NAME));
    const found = await find();
    if (!found.some((l) => l.info.kind === 'Deployment')) {
      io.stderr.write(`Operator controller is not installed in ${namespace} namespace (no Deployment detected).\n`);
      if (!flags.bool('force')) throw new CliError('Aborting, use --force to override.');
    }
    const meshOperators = purge ? await listMeshOperators(ctx) : [];
    const lines = [...meshOperators.map((m) => `MeshOperator ${m}`), ...found.map(refOf)];
    const namespaceGoes = purge && (await operatorNamespaceLabelled(ctx, namespace));
    if (namespaceGoes) lines.push(`Namespace ${namespace}`);
    io.stdout.write(`${lines.map((l) => `  - ${l}\n`).join('')}${lines.length} objects to remove.\n`);
    if (flags.bool('dry-run')) {
      io.stdout.write('Dry run: no changes made.\n');
      return 0;
    }
    if (!flags.bool('skip-confirmation')) {
      const q = purge ? 'All revisions of Mesh operator will be removed from cluster, Proceed? (y/N) ' : `Mesh operator revision "${revisionLabelValue(revision)}" will be removed from cluster, Proceed? (y/N) `;
      if (!(await confirm(ctx, q))) {
        io.stdout.write('Cancelled.\n');
        return 1;
      }
    }
    io.stdout.write('Removing Mesh operator...\n');
    // NOTE: MeshOperators go first, while the operator runs: it finalizes them by deleting what it installed.
    for (const m of meshOperators) await client.request('DELETE', `/apis/install.mesh.io/v1alpha1/namespaces/${m.split('/')[0]}/meshoperators/${m.split('/')[1]}`).catch(ignoreNotFound);
    await waitGone(`MeshOperators ${meshOperators.join(', ')} to be finalized by the operator (is it running?)`, async () => (await listMeshOperators(ctx)).length === 0, interrupt.signal);
    for (const l of found) await applier.deleteLive(l);
    if (namespaceGoes) await client.request('DELETE', `/api/v1/namespaces/${encodeURIComponent(namespace)}`).catch(ignoreNotFound);
    await waitGone('the operator objects to be gone', async () => (await find()).length === 0, interrupt.signal);
    io.stdout.write(`✔ Removal complete (${lines.length} objects removed)\n`);
    return 0;
  } catch (e) {
    return rethrowApplyFailure(e, interrupt);
  } finally {
    interrupt.dispose();
  }
}

function ignoreNotFound(e: unknown): void {
  if ((e as { status?: number }).status !== 404) throw e;
}

/** Every MeshOperator in the cluster as `namespace/name` (none when the CRD is not served). */
async function listMeshOperators(ctx: RunContext): Promise<string[]> {
  const client = meshctlOrchClient(ctx, 'meshctl operator remove');
  const list = await getOptional<{ items?: { metadata: { name: string; namespace: string } }[] }>(client, MESH_OPERATORS_PATH);
  return (list?.items ?? []).map((i) => `${i.metadata.namespace}/${i.metadata.name}`);
}

/** Whether the operator's namespace exists and was made by operator init (its labels). */
async function operatorNamespaceLabelled(ctx: RunContext, namespace: string): Promise<boolean> {
  const client = meshctlOrchClient(ctx, 'meshctl operator remove');
  const ns = await getOptional<{ metadata: { labels?: Record<string, string> } }>(client, `/api/v1/namespaces/${encodeURIComponent(namespace)}`);
  return ns?.metadata.labels?.[COMPONENT_LABEL] === OPERATOR_COMPONENT;
}

async function waitGone(what: string, gone: () => Promise<boolean>, signal: AbortSignal): Promise<void> {
  const deadline = systemClock.now() + WAIT_MS;
  while (!(await gone())) {
    if (systemClock.now() >= deadline) throw new CliError(`timed out after ${WAIT_MS} ms waiting for ${what}`);
    await systemClock.sleep(500, signal, { keepAlive: true });
  }
}
