/**
 * `meshctl tag set|remove|list`: revision tags as Istio has them. A tag is a MutatingWebhookConfiguration
 * `mesh-revision-tag-<tag>` (labels `mesh.io/rev=<revision>`, `mesh.io/tag=<tag>`) rendered from the meshd
 * chart's `revisionTags`, pointing at the revision's meshd with the revision's CA bundle, so namespaces
 * labelled `mesh.io/rev=<tag>` are injected by that revision. The `default` tag also takes over the
 * cluster's default validation (the base chart's validator for `defaultRevision=<revision>`).
 */
import { parseAllDocuments } from 'yaml';
import { apiStatusOf, chartDir, loadChart, ManifestApplier, renderChart, REVISION_LABEL, TAG_LABEL, type ApplyClient, type ManifestObject } from '../../install/index.js';
import { CliError, notImplemented, type RunContext } from '../framework/index.js';
import { canAsk, confirm } from './install-run.js';
import { MESH_NAMESPACE } from './install-spec.js';
import { meshctlOrchClient } from './meshctl-orch.js';

const MWC = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';

type Obj = Record<string, unknown>;
interface Listed {
  metadata: { name: string; labels?: Record<string, string> };
  webhooks?: { clientConfig?: { caBundle?: string } }[];
}

/** The name of a tag's webhook configuration. */
export function tagWebhookName(tag: string): string {
  return `mesh-revision-tag-${tag}`;
}

async function list<T = Listed>(client: ApplyClient, path: string, selector: string): Promise<T[]> {
  return (await client.request<{ items?: T[] }>('GET', path, { query: { labelSelector: selector } })).items ?? [];
}

/** The injector webhook of `revision` (not a tag). */
async function revisionWebhooks(client: ApplyClient, revision: string): Promise<Listed[]> {
  return (await list(client, MWC, `${REVISION_LABEL}=${revision},!${TAG_LABEL}`)).filter((w) => w.metadata.name.startsWith('mesh-sidecar-injector'));
}

/** Namespaces and pods that select `tag` through `mesh.io/rev`. */
async function tagUsers(client: ApplyClient, tag: string): Promise<string[]> {
  const ns = await list<{ metadata: { name: string } }>(client, '/api/v1/namespaces', `${REVISION_LABEL}=${tag}`);
  const pods = await list<{ metadata: { name: string; namespace: string } }>(client, '/api/v1/pods', `${REVISION_LABEL}=${tag}`);
  return [...ns.map((n) => `namespace ${n.metadata.name}`), ...pods.map((p) => `pod ${p.metadata.namespace}/${p.metadata.name}`)];
}

/** Refuses (or asks on a terminal) when the tag is in use, unless `-y`. */
async function guardInUse(ctx: RunContext, client: ApplyClient, tag: string, doing: string): Promise<void> {
  const users = await tagUsers(client, tag);
  if (users.length === 0 || ctx.flags.bool('skip-confirmation')) return;
  const msg = `revision tag "${tag}" is in use by ${users.length} object(s): ${users.join(', ')}; ${doing} may shift their traffic or injection`;
  if (!canAsk(ctx)) throw new CliError(`${msg}. Pass -y (--skip-confirmation) to proceed anyway`);
  ctx.io.stderr.write(`Caution: ${msg}.\n`);
  if (!(await confirm(ctx, 'Proceed with operation? [y/N] '))) throw new CliError(`canceled: ${doing}`);
}

function renderedObjects(text: string): Obj[] {
  return parseAllDocuments(text, { version: '1.1' }).map((d) => d.toJS() as Obj).filter((o) => o !== null && typeof o === 'object');
}

function asManifestObject(o: Obj): ManifestObject {
  const meta = o['metadata'] as { name: string };
  return { component: 'Tag', apiVersion: String(o['apiVersion']), kind: String(o['kind']), name: meta.name, namespace: '', object: o };
}

/** The tag's webhook configuration (and for `default` the validator), rendered from the charts. */
export function renderTagObjects(tag: string, revision: string, webhookName: string, caBundle: string | undefined): Obj[] {
  const rev = revision === 'default' ? '' : revision;
  const meshd = renderChart(loadChart(chartDir('meshd')), { revision: rev, revisionTags: [tag] }, { name: 'meshd', namespace: MESH_NAMESPACE });
  const wh = renderedObjects(meshd.text).find((o) => o['kind'] === 'MutatingWebhookConfiguration' && (o['metadata'] as Obj)['name'] === tagWebhookName(tag));
  if (!wh) throw new Error(`the meshd chart rendered no ${tagWebhookName(tag)}`);
  const meta = wh['metadata'] as Obj;
  meta['name'] = webhookName;
  meta['labels'] = { ...(meta['labels'] as Obj), [REVISION_LABEL]: revision, [TAG_LABEL]: tag };
  if (caBundle) for (const w of wh['webhooks'] as Obj[]) (w['clientConfig'] as Obj)['caBundle'] = caBundle;
  const out = [wh];
  if (tag === 'default') {
    const base = renderChart(loadChart(chartDir('base')), { defaultRevision: revision }, { name: 'base', namespace: MESH_NAMESPACE });
    const vwc = renderedObjects(base.text).find((o) => o['kind'] === 'ValidatingWebhookConfiguration');
    if (!vwc) throw new Error('the base chart rendered no default validator');
    const vm = vwc['metadata'] as Obj;
    vm['labels'] = { ...(vm['labels'] as Obj), [REVISION_LABEL]: revision, [TAG_LABEL]: tag };
    out.push(vwc);
  }
  return out;
}

/** The `run` of `meshctl tag set`. */
export async function runTagSet(ctx: RunContext): Promise<number> {
  const { flags, io } = ctx;
  const tag = ctx.args[0] as string;
  const revision = flags.string('revision');
  if (revision === '') throw new CliError('tag set: --revision is required (the control plane revision the tag points to)');
  if (flags.bool('auto-inject-namespaces')) notImplemented('tag set --auto-inject-namespaces');
  if (flags.string('manifests') !== '') notImplemented('tag set --manifests');
  const client = meshctlOrchClient(ctx, 'meshctl tag set');
  // NOTE: the default tag may share its name with the default revision: it takes that revision's place.
  if (tag !== 'default' && (await revisionWebhooks(client, tag)).length > 0) throw new CliError(`cannot create revision tag "${tag}": found existing control plane revision with same name`);
  const revWebhooks = await revisionWebhooks(client, revision);
  if (revWebhooks.length === 0) throw new CliError(`cannot find MutatingWebhookConfiguration with revision "${revision}"`);
  if (revWebhooks.length > 1) throw new CliError(`found multiple canonical webhooks with revision "${revision}": ${revWebhooks.map((w) => w.metadata.name).join(', ')}`);
  const existing = await list(client, MWC, `${TAG_LABEL}=${tag}`);
  if (existing.length > 0) {
    if (!flags.bool('overwrite')) throw new CliError(`revision tag "${tag}" already exists, and --overwrite is false`);
    if (existing.some((w) => w.metadata.labels?.[REVISION_LABEL] !== revision)) await guardInUse(ctx, client, tag, `pointing tag "${tag}" at revision "${revision}"`);
  }
  const name = flags.string('webhook-name') || tagWebhookName(tag);
  const objects = renderTagObjects(tag, revision, name, revWebhooks[0]?.webhooks?.[0]?.clientConfig?.caBundle).map(asManifestObject);
  const applier = new ManifestApplier(client, { readinessTimeoutMs: 30_000, force: flags.bool('overwrite') });
  try {
    await applier.apply(objects);
    // NOTE: the default tag takes over validation: other default validators (another defaultRevision) go.
    if (tag === 'default') {
      const keep = new Set(objects.map((o) => o.name));
      for (const v of await list(client, VWC, 'app=meshd')) {
        if (!keep.has(v.metadata.name) && /^mesh-validator-.+-/.test(v.metadata.name)) {
          await deleteIgnoringMissing(client, `${VWC}/${v.metadata.name}`);
        }
      }
    }
  } catch (e) {
    throw new CliError(`failed to apply the tag webhook to the cluster: ${(e as Error).message}`);
  }
  io.stdout.write(`Revision tag "${tag}" created, referencing control plane revision "${revision}". To enable injection using this
revision tag, use 'kubectl label namespace <NAMESPACE> mesh.io/rev=${tag}'\n`);
  return 0;
}

async function deleteIgnoringMissing(client: ApplyClient, path: string): Promise<void> {
  try {
    await client.request('DELETE', path);
  } catch (e) {
    if (apiStatusOf(e) !== 404) throw e;
  }
}

/** The `run` of `meshctl tag remove`. */
export async function runTagRemove(ctx: RunContext): Promise<number> {
  const tag = ctx.args[0] as string;
  const client = meshctlOrchClient(ctx, 'meshctl tag remove');
  const hooks = await list(client, MWC, `${TAG_LABEL}=${tag}`);
  if (hooks.length === 0) throw new CliError(`cannot remove tag "${tag}": cannot find MutatingWebhookConfiguration for tag`);
  await guardInUse(ctx, client, tag, `removing tag "${tag}"`);
  for (const h of hooks) await deleteIgnoringMissing(client, `${MWC}/${h.metadata.name}`);
  for (const v of await list(client, VWC, `${TAG_LABEL}=${tag}`)) await deleteIgnoringMissing(client, `${VWC}/${v.metadata.name}`);
  ctx.io.stdout.write(`Revision tag ${tag} removed\n`);
  return 0;
}

/** The `run` of `meshctl tag list`: TAG, REVISION, NAMESPACES columns as Istio prints them. */
export async function runTagList(ctx: RunContext): Promise<number> {
  const client = meshctlOrchClient(ctx, 'meshctl tag list');
  const hooks = await list(client, MWC, TAG_LABEL);
  const rows = [['TAG', 'REVISION', 'NAMESPACES']];
  for (const h of hooks.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))) {
    const tag = h.metadata.labels?.[TAG_LABEL] ?? '';
    const ns = await list<{ metadata: { name: string } }>(client, '/api/v1/namespaces', `${REVISION_LABEL}=${tag}`);
    rows.push([tag, h.metadata.labels?.[REVISION_LABEL] ?? '', ns.map((n) => n.metadata.name).join(',')]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  for (const r of rows) ctx.io.stdout.write(`${r.map((c, i) => (i < r.length - 1 ? c.padEnd((widths[i] ?? 0) + 3) : c)).join('').trimEnd()}\n`);
  return 0;
}
