import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import { OrchApiError, OrchClient } from '../controllers/index.js';
import { renderCrds } from '../crds/index.js';
import { COMPONENT_LABEL, ManifestApplier, objectPathOf, OWNING_RESOURCE_LABEL, OWNING_RESOURCE_NAMESPACE_LABEL, resolveMeshOperator } from '../install/index.js';
import { MESH_OPERATOR_CRD_NAME } from '../operator/index.js';
import { bufferIo, FlagValues, runCli } from '../cli/framework/index.js';
import { readInstallSpec, renderInstallObjects } from '../cli/meshctl/install-spec.js';
import { meshctlCommand } from '../cli/meshctl/meshctl-command.js';
import { freePorts, httpGet, programEnv, startProgram, waitForHttp, type ProgramProcess } from '../cli/testing/program-process.js';
import { applyCrds, deleteNamespaceFully, e2eCluster, waitFor, markDeploymentsAvailable } from './harness/index.js';

const CLIENT_OPTIONS = { qps: 100, burst: 200, contentType: 'json' } as const;
const NS = 'mesh-system';
const OPERATOR_NS = 'mesh-operator';
const CR = `/apis/install.mesh.io/v1alpha1/namespaces/${NS}/meshoperators`;
const DEPLOYMENTS = `/apis/apps/v1/namespaces/${NS}/deployments`;

type Obj = Record<string, unknown>;
interface Deployment {
  metadata: { name: string; namespace: string; uid?: string; generation?: number; managedFields?: { manager: string }[] };
  spec: { replicas?: number };
  status?: { observedGeneration?: number; availableReplicas?: number; updatedReplicas?: number };
}
interface MeshOperatorLive {
  metadata: { generation: number; finalizers?: string[] };
  status?: { status?: string; message?: string; observedGeneration?: number; componentStatus?: Record<string, { status: string }>; conditions?: { type: string; status: string; observedGeneration: number }[] };
}

async function meshctl(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = bufferIo();
  const code = await runCli(meshctlCommand(), [...args, '--orchconfig', e2eCluster().kubeconfigPath], io);
  return { code, out: io.out(), err: io.err() };
}

async function getOptional<T>(client: OrchClient, path: string): Promise<T | undefined> {
  try {
    return await client.request<T>('GET', path);
  } catch (e) {
    if (e instanceof OrchApiError && e.status === 404) return undefined;
    throw e;
  }
}

/** A resource quantity in base units (`2000m` = `2`, `1024Mi` = `1Gi`), or undefined when `v` is none. */
function quantity(v: unknown): number | undefined {
  const m = typeof v === 'string' ? /^(\d+(?:\.\d+)?)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(v) : undefined;
  if (!m) return typeof v === 'number' ? v : undefined;
  const f: Record<string, number> = { '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };
  return Number(m[1]) * (f[m[2] ?? ''] ?? NaN);
}

/**
 * The fields of `want` that `got` lacks or holds differently. A subset check, since the API server adds
 * defaults; it also drops null fields and writes quantities in canonical form (`2000m` as `2`).
 */
function notIn(want: unknown, got: unknown, path = ''): string[] {
  if (want === null) return got === null || got === undefined ? [] : [`${path}: want null, got ${JSON.stringify(got)}`];
  if (typeof want === 'object') {
    if (got === null || typeof got !== 'object' || Array.isArray(want) !== Array.isArray(got)) return [`${path}: want ${JSON.stringify(want)}, got ${JSON.stringify(got)}`];
    if (Array.isArray(want)) {
      const g = got as unknown[];
      if (want.length !== g.length) return [`${path}: want ${want.length} items, got ${g.length}`];
      return want.flatMap((w, i) => notIn(w, g[i], `${path}[${i}]`));
    }
    return Object.entries(want as Obj).flatMap(([k, v]) => notIn(v, (got as Obj)[k], `${path}.${k}`));
  }
  if (want === got) return [];
  if (/\.resources\.(limits|requests)\./.test(path) && quantity(want) !== undefined && quantity(want) === quantity(got)) return [];
  return [`${path}: want ${JSON.stringify(want)}, got ${JSON.stringify(got)}`];
}

describe('e2e: the operator reconciles MeshOperators on a real API server', function () {
  this.timeout(300_000);
  let client: OrchClient;
  let kubelet: Subscription | undefined;
  let operator: ProgramProcess | undefined;
  let monitoring = 0;
  let dir: string;
  let crFile: string;
  const logs = (): string => `\n--- operator log (tail) ---\n${(operator?.stdout() ?? '').split('\n').slice(-30).join('\n')}\n${operator?.stderr() ?? ''}`;
  const cr = (name: string): Promise<MeshOperatorLive | undefined> => getOptional<MeshOperatorLive>(client, `${CR}/${name}`);
  const metric = async (name: string): Promise<number> => {
    const body = (await httpGet(`http://127.0.0.1:${monitoring}/metrics`)).body;
    const line = body.split('\n').find((l) => l.startsWith(`${name} `));
    return line === undefined ? 0 : Number(line.split(' ')[1]);
  };

  /** Runs `operator server` against the harness's API server, watching mesh-system. */
  const startOperator = async (...extra: string[]): Promise<void> => {
    const [m, z] = await freePorts(2);
    monitoring = m!;
    operator = startProgram(
      'operator',
      ['server', '--orchconfig', e2eCluster().kubeconfigPath, '--monitoring-host=127.0.0.1', `--monitoring-port=${monitoring}`, '--ctrlz_address=127.0.0.1', `--ctrlz_port=${z}`, ...extra],
      programEnv({ MESH_WATCH_NAMESPACE: NS }),
    );
    await waitForHttp(`http://127.0.0.1:${monitoring}/metrics`, operator);
  };

  before(() => {
    client = new OrchClient(e2eCluster().kubeConfig(), CLIENT_OPTIONS);
    // NOTE: a stand-in for the kubelet and the deployment controller (the harness runs neither) marks Deployments available.
    kubelet = markDeploymentsAvailable(client);
    dir = mkdtempSync(join(tmpdir(), 'e2e-operator-'));
    crFile = join(dir, 'demo.yaml');
    writeFileSync(crFile, `apiVersion: install.mesh.io/v1alpha1\nkind: MeshOperator\nmetadata:\n  name: demo\n  namespace: ${NS}\nspec:\n  profile: demo\n`);
  });

  after(async () => {
    kubelet?.unsubscribe();
    if (operator && operator.child.exitCode === null && operator.child.signalCode === null) {
      operator.child.kill('SIGTERM');
      await operator.exited;
    }
    rmSync(dir, { recursive: true, force: true });
    await deleteNamespaceFully(e2eCluster().kubeConfig().makeApiClient(CoreV1Api), OPERATOR_NS);
    // NOTE: removing the operator's resources took the mesh CRDs; later e2e files of the same run expect them.
    const crds = renderCrds();
    await waitFor('the removed CRDs to be gone', async () => {
      for (const c of crds) if (await getOptional(client, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${c.metadata.name}`)) return false;
      return true;
    }, 240_000);
    await applyCrds(client, crds);
  });

  it('given operator init -f with a demo MeshOperator, should install the operator (namespace, RBAC, Deployment, CRD) and the resource', async () => {
    // NOTE: the MeshOperator CRD already there under another field manager (as the base chart or other tests
    // leave it, with other labels): init takes the CRD over instead of failing on the conflict.
    await applyCrds(client, renderCrds().filter((c) => c.metadata.name === MESH_OPERATOR_CRD_NAME));
    const r = await meshctl('operator', 'init', '-f', crFile, '--watchedNamespaces', NS);
    assert.equal(r.code, 0, `${r.out}\n${r.err}`);
    assert.match(r.out, /using image: docker\.io\/mesh\/operator:0\.1\.0/);
    const d = await client.request<{ spec: { template: { spec: { containers: { image: string; env: { name: string; value: string }[] }[] } } } }>('GET', `/apis/apps/v1/namespaces/${OPERATOR_NS}/deployments/mesh-operator`);
    assert.deepEqual(d.spec.template.spec.containers[0]?.env, [{ name: 'MESH_WATCH_NAMESPACE', value: NS }]);
    for (const path of [`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${MESH_OPERATOR_CRD_NAME}`, '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/mesh-operator', `/api/v1/namespaces/${OPERATOR_NS}/serviceaccounts/mesh-operator`, `${CR}/demo`]) {
      assert.ok(await getOptional(client, path), `${path} missing`);
    }
    // The operator itself runs here as a process (the harness runs no pods): the Deployment above is its stand-in.
    await startOperator();
  });

  it('should hold the Lease mesh-operator-lock and report the demo resource HEALTHY with its observedGeneration, per component and as a condition', async () => {
    const live = await waitFor('MeshOperator demo HEALTHY', async () => {
      const c = await cr('demo');
      return c?.status?.status === 'HEALTHY' && c.status.observedGeneration === c.metadata.generation ? c : undefined;
    }, 240_000).catch((e: Error) => assert.fail(`${e.message}${logs()}`));
    assert.deepEqual(live.status?.componentStatus, { Base: { status: 'HEALTHY' }, Pilot: { status: 'HEALTHY' }, IngressGateways: { status: 'HEALTHY' }, EgressGateways: { status: 'HEALTHY' } });
    const cond = live.status?.conditions?.find((c) => c.type === 'Reconciled');
    assert.equal(cond?.status, 'True');
    assert.equal(cond?.observedGeneration, live.metadata.generation);
    assert.deepEqual(live.metadata.finalizers, ['mesh-finalizer.install.mesh.io']);
    const lease = await client.request<{ spec: { holderIdentity?: string } }>('GET', `/apis/coordination.k8s.io/v1/namespaces/${OPERATOR_NS}/leases/mesh-operator-lock`);
    assert.ok(lease.spec.holderIdentity, 'the lease has a holder');
  });

  it('should have created the objects meshctl install creates for the same profile (modulo the owner labels), applied by mesh-operator', async () => {
    const spec = resolveMeshOperator({ sets: ['profile=demo'] }).spec;
    const expected = renderInstallObjects({ ...readInstallSpec(new FlagValues([], new Map(), new Set()), []), spec, owner: { name: 'installed-state', namespace: NS, revision: '' } });
    const found = await new ManifestApplier(client, { readinessTimeoutMs: 0 }).findLive(`${OWNING_RESOURCE_LABEL}=demo,${OWNING_RESOURCE_NAMESPACE_LABEL}=${NS}`);
    const live = found.map((l) => `${l.info.kind} ${l.namespace}/${l.name}`).sort();
    // NOTE: the MeshOperator CRD is the operator's own (operator init installed it); the operator leaves it out.
    const want = expected.filter((o) => o.name !== MESH_OPERATOR_CRD_NAME).map((o) => `${o.kind} ${o.namespace}/${o.name}`).sort();
    assert.deepEqual(live, want);
    assert.ok(expected.some((o) => o.name === MESH_OPERATOR_CRD_NAME));
    const problems: string[] = [];
    for (const o of expected.filter((x) => x.name !== MESH_OPERATOR_CRD_NAME)) {
      const l = found.find((x) => x.info.kind === o.kind && x.name === o.name && x.namespace === o.namespace);
      assert.ok(l, `${o.kind} ${o.name}`);
      const got = await client.request<Obj>('GET', objectPathOf(l.info, o.name, o.namespace || undefined));
      const meta = o.object['metadata'] as Obj;
      const labels = { ...(meta['labels'] as Record<string, string>) };
      delete labels[OWNING_RESOURCE_LABEL];
      const wantObj = { ...o.object, metadata: { ...meta, labels } };
      problems.push(...notIn(wantObj, got).map((p) => `${o.kind} ${o.name}${p}`));
      const managers = ((got['metadata'] as Obj)['managedFields'] as { manager: string }[]).map((f) => f.manager);
      if (!managers.includes('mesh-operator')) problems.push(`${o.kind} ${o.name}: no field manager mesh-operator (${managers.join(', ')})`);
    }
    assert.deepEqual(problems, []);
  });

  it('given the meshd Deployment deleted by hand, should re-create it', async () => {
    const before = await client.request<Deployment>('GET', `${DEPLOYMENTS}/meshd`);
    await client.request('DELETE', `${DEPLOYMENTS}/meshd`);
    const again = await waitFor('meshd re-created', async () => {
      const d = await getOptional<Deployment>(client, `${DEPLOYMENTS}/meshd`);
      return d && d.metadata.uid !== before.metadata.uid ? d : undefined;
    }, 120_000).catch((e: Error) => assert.fail(`${e.message}${logs()}`));
    assert.ok(again.metadata.managedFields?.some((f) => f.manager === 'mesh-operator'));
  });

  it('given an edit of the resource (egress gateway off, 2 meshd replicas), should patch the Deployment, prune the gateway and observe the new generation', async () => {
    assert.ok(await getOptional(client, `${DEPLOYMENTS}/mesh-egressgateway`), 'the demo install has an egress gateway');
    const edited = await client.request<MeshOperatorLive>('PATCH', `${CR}/demo`, {
      body: { spec: { components: { egressGateways: [{ name: 'mesh-egressgateway', enabled: false }] }, values: { pilot: { replicaCount: 2 } } } },
      contentType: 'application/merge-patch+json',
    });
    const live = await waitFor('the edit applied and pruned', async () => {
      const d = await client.request<Deployment>('GET', `${DEPLOYMENTS}/meshd`);
      const egress = await getOptional(client, `${DEPLOYMENTS}/mesh-egressgateway`);
      const c = await cr('demo');
      return d.spec.replicas === 2 && egress === undefined && c?.status?.status === 'HEALTHY' && c.status.observedGeneration === edited.metadata.generation ? c : undefined;
    }, 120_000).catch((e: Error) => assert.fail(`${e.message}${logs()}`));
    assert.deepEqual(Object.keys(live.status?.componentStatus ?? {}).sort(), ['Base', 'IngressGateways', 'Pilot']);
    assert.deepEqual(await new ManifestApplier(client, { readinessTimeoutMs: 0 }).findLive(`${OWNING_RESOURCE_LABEL}=demo,${COMPONENT_LABEL}=EgressGateways`), []);
    assert.ok((await metric('resource_prune_total{kind="Deployment"}')) >= 1);
  });

  it('given an invalid MeshOperator, should set status ERROR naming the field, apply nothing of it, and count cr_validation_error_total', async () => {
    const before = await metric('cr_validation_error_total');
    await client.request('POST', CR, { body: { apiVersion: 'install.mesh.io/v1alpha1', kind: 'MeshOperator', metadata: { name: 'broken', namespace: NS }, spec: { profile: 'empty', revision: 'Bad_Rev' } } });
    const live = await waitFor('MeshOperator broken ERROR', async () => {
      const c = await cr('broken');
      return c?.status?.status === 'ERROR' ? c : undefined;
    }, 120_000).catch((e: Error) => assert.fail(`${e.message}${logs()}`));
    assert.match(live.status?.message ?? '', /MeshOperator mesh-system\/broken: invalid MeshOperator: spec\.revision: "Bad_Rev" is not a DNS-1123 label/);
    assert.equal(live.status?.observedGeneration, live.metadata.generation);
    assert.ok((await metric('cr_validation_error_total')) > before);
    assert.deepEqual(await new ManifestApplier(client, { readinessTimeoutMs: 0 }).findLive(`${OWNING_RESOURCE_LABEL}=broken`), []);
  });

  it('given the operator restarted with --force, should proceed past the validation error (the empty profile installs nothing: HEALTHY) and still count it', async () => {
    operator!.child.kill('SIGTERM');
    assert.equal(await operator!.exited, 0, operator!.stderr());
    // NOTE: the stopped operator released its Lease, so the new one leads at once.
    await startOperator('--force', '--max-concurrent-reconciles=2');
    const live = await waitFor('MeshOperator broken HEALTHY', async () => {
      const c = await cr('broken');
      return c?.status?.status === 'HEALTHY' ? c : undefined;
    }, 120_000).catch((e: Error) => assert.fail(`${e.message}${logs()}`));
    assert.deepEqual(live.status?.componentStatus ?? {}, {});
    assert.ok((await metric('cr_validation_error_total')) >= 1);
    assert.match(operator!.stdout(), /proceeding past validation errors \(--force\)/);
    await client.request('DELETE', `${CR}/broken`);
    await waitFor('MeshOperator broken finalized and gone', async () => (await cr('broken')) === undefined, 60_000).catch((e: Error) => assert.fail(`${e.message}${logs()}`));
  });

  it('given operator remove --purge, should delete the MeshOperator (the operator removing what it installed) and the operator, leaving no mesh object behind', async () => {
    const none = await meshctl('operator', 'remove', '--revision', 'nosuch', '-y');
    assert.equal(none.code, 1);
    assert.match(none.err, /Operator controller is not installed in mesh-operator namespace \(no Deployment detected\)\.\nError: Aborting, use --force to override\./);
    const dry = await meshctl('operator', 'remove', '--purge', '--dry-run');
    assert.equal(dry.code, 0, dry.err);
    assert.match(dry.out, /- MeshOperator mesh-system\/demo\n[^]*- Deployment mesh-operator\/mesh-operator\n[^]*- Namespace mesh-operator\n\d+ objects to remove\.\nDry run: no changes made\./);
    assert.ok(await cr('demo'), 'the dry run removed nothing');
    const r = await meshctl('operator', 'remove', '--purge', '-y');
    assert.equal(r.code, 0, `${r.out}\n${r.err}${logs()}`);
    assert.match(r.out, /- MeshOperator mesh-system\/demo/);
    assert.equal(await cr('demo'), undefined);
    assert.ok((await metric('cr_deletion_total')) >= 1);
    const applier = new ManifestApplier(client, { readinessTimeoutMs: 0 });
    await waitFor('no labelled mesh object', async () => (await applier.findLive(COMPONENT_LABEL)).length === 0, 240_000);
    const crds = await client.request<{ items: { metadata: { name: string } }[] }>('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions');
    const left = crds.items.map((c) => c.metadata.name).filter((n) => n.endsWith('.mesh.io'));
    // NOTE: a CRD whose instances the API server is still deleting stays (terminating) for a moment.
    await waitFor('no mesh CRD', async () => (await client.request<{ items: { metadata: { name: string } }[] }>('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions')).items.every((c) => !c.metadata.name.endsWith('.mesh.io')), 240_000).catch(() => assert.deepEqual(left, []));
    // NOTE: the harness runs no namespace controller, so the deleted namespace stays Terminating: its deletion is what counts.
    const ns = await getOptional<{ metadata: { deletionTimestamp?: string } }>(client, `/api/v1/namespaces/${OPERATOR_NS}`);
    assert.ok(ns === undefined || ns.metadata.deletionTimestamp, 'the operator namespace is deleted');
    for (const path of [`/apis/apps/v1/namespaces/${OPERATOR_NS}/deployments/mesh-operator`, '/apis/rbac.authorization.k8s.io/v1/clusterroles/mesh-operator', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/mesh-operator']) {
      assert.equal(await getOptional(client, path), undefined, `${path} left behind`);
    }
  });
});
