/**
 * `meshctl x check-inject [<type>/]<name>[.<namespace>]`, `-l k=v,...`, or just `-n <namespace>`: which
 * injection webhooks the API server would call for a pod (or a workload's pod template, a set of labels, or
 * an unlabelled pod of the namespace), and the label that decided each one (webhooks/webhook-configurations.ts `checkInjection`);
 * then, for each webhook that would be called, whether its revision's injector injects the pod (policy,
 * neverInjectSelector, alwaysInjectSelector, the pod's opt-in or opt-out: webhooks/inject-policy.ts `injectRequired`).
 */
import { checkInjection, defaultInjectionConfig, injectRequired, InjectionConfigError, parseInjectionConfig, SIDECAR_STATUS, type InjectionConfig, type WebhookVerdict } from '../../webhooks/index.js';
import type { OrchClient } from '../../controllers/index.js';
import { CliError, type RunContext } from '../framework/index.js';
import { getOptional, meshctlOrchClient } from './meshctl-orch.js';

interface Meta {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
}

interface PodFacts {
  readonly namespace: string;
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly hostNetwork: boolean;
}

/**
 * The injector's own decision for each webhook the API server would call: the revision's
 * `mesh-sidecar-injector[-<revision>]` ConfigMap (policy, neverInjectSelector, alwaysInjectSelector) and the
 * pod's `sidecar.mesh.io/inject` label or annotation. A webhook that is called but whose injector skips the
 * pod turns to `no`, with the injector's reason. Without the ConfigMap the injector runs on its defaults.
 */
async function applyInjectorPolicy(client: OrchClient, meshNamespace: string, pod: PodFacts, verdicts: readonly WebhookVerdict[]): Promise<WebhookVerdict[]> {
  const configs = new Map<string, InjectionConfig>();
  const configOf = async (revision: string): Promise<InjectionConfig> => {
    const known = configs.get(revision);
    if (known) return known;
    const name = revision === 'default' ? 'mesh-sidecar-injector' : `mesh-sidecar-injector-${revision}`;
    const cm = await getOptional<{ data?: Record<string, string> }>(client, `/api/v1/namespaces/${encodeURIComponent(meshNamespace)}/configmaps/${name}`);
    let config = defaultInjectionConfig();
    const text = cm?.data?.['config'];
    if (text !== undefined) {
      try {
        config = parseInjectionConfig(text, `ConfigMap ${meshNamespace}/${name} config`);
      } catch (e) {
        if (e instanceof InjectionConfigError) throw new CliError(e.message);
        throw e;
      }
    }
    configs.set(revision, config);
    return config;
  };
  const out: WebhookVerdict[] = [];
  for (const v of verdicts) {
    if (!v.injected) {
      out.push(v);
      continue;
    }
    const decision = injectRequired(await configOf(v.revision), pod);
    out.push(decision.inject ? v : { ...v, injected: false, reason: `${v.reason}; the injector skips the pod: ${decision.reason}` });
  }
  return out;
}

const WORKLOADS: Readonly<Record<string, string>> = {
  pod: '/api/v1/namespaces/NS/pods/',
  po: '/api/v1/namespaces/NS/pods/',
  deployment: '/apis/apps/v1/namespaces/NS/deployments/',
  deploy: '/apis/apps/v1/namespaces/NS/deployments/',
  statefulset: '/apis/apps/v1/namespaces/NS/statefulsets/',
  daemonset: '/apis/apps/v1/namespaces/NS/daemonsets/',
};

/** Parses `k=v,k2=v2`. @throws CliError naming the bad pair */
export function parseLabelList(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of text.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new CliError(`--labels: ${JSON.stringify(pair)} is not key=value`);
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

/** Runs `meshctl x check-inject`. */
export async function runCheckInject(ctx: RunContext): Promise<number> {
  const target = ctx.args[0];
  const labelsFlag = ctx.flags.string('labels');
  // NOTE: with neither a target nor --labels, the namespace (-n) is checked for a pod without labels.
  let namespace = ctx.flags.string('namespace') || 'default';
  let podLabels: Record<string, string> = labelsFlag !== '' ? parseLabelList(labelsFlag) : {};
  let annotations: Record<string, string> = {};
  let hostNetwork = false;
  const client = meshctlOrchClient(ctx, 'checking injection');
  if (target) {
    const slash = target.indexOf('/');
    const type = slash >= 0 ? target.slice(0, slash).toLowerCase() : 'pod';
    let name = slash >= 0 ? target.slice(slash + 1) : target;
    const dot = name.indexOf('.');
    if (dot >= 0) [name, namespace] = [name.slice(0, dot), name.slice(dot + 1)];
    const base = WORKLOADS[type];
    if (!base) throw new CliError(`unknown type ${type}: one of ${Object.keys(WORKLOADS).join(', ')}`);
    const obj = await getOptional<Meta & { spec?: { hostNetwork?: boolean; template?: Meta & { spec?: { hostNetwork?: boolean } } } }>(client, `${base.replace('NS', encodeURIComponent(namespace))}${encodeURIComponent(name)}`);
    if (!obj) throw new CliError(`${type} ${namespace}/${name} not found`);
    const isPod = type === 'pod' || type === 'po';
    const meta = isPod ? obj.metadata : obj.spec?.template?.metadata;
    podLabels = { ...(meta?.labels ?? {}), ...podLabels };
    annotations = meta?.annotations ?? {};
    hostNetwork = (isPod ? obj.spec?.hostNetwork : obj.spec?.template?.spec?.hostNetwork) === true;
  }
  const ns = await getOptional<Meta>(client, `/api/v1/namespaces/${encodeURIComponent(namespace)}`);
  if (!ns) throw new CliError(`namespace ${namespace} not found`);
  const list = await client.request<{ items?: Record<string, unknown>[] }>('GET', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations');
  const called = checkInjection(list.items ?? [], ns.metadata?.labels ?? {}, podLabels);
  const pod = { namespace, labels: podLabels, annotations, hostNetwork };
  // NOTE: an already injected pod is reported below; the injector's own "already injected" skip would hide which webhook matched.
  const verdicts = annotations[SIDECAR_STATUS] !== undefined ? called : await applyInjectorPolicy(client, ctx.flags.string('meshNamespace'), pod, called);
  const { stdout } = ctx.io;
  if (verdicts.length === 0) {
    stdout.write('no injection webhook is installed (no MutatingWebhookConfiguration with a sidecar-injector webhook)\n');
    return 0;
  }
  const rows = [['WEBHOOK', 'REVISION', 'INJECTED', 'REASON'], ...verdicts.map((v) => [v.webhook, v.revision, v.injected ? 'yes' : 'no', v.reason])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows) stdout.write(`${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}\n`);
  const chosen = verdicts.filter((v) => v.injected);
  if (chosen.length > 1) stdout.write(`Warning: ${chosen.length} webhooks would inject this pod (${chosen.map((v) => v.webhook).join(', ')}): keep one revision per namespace\n`);
  if (annotations[SIDECAR_STATUS] !== undefined) stdout.write(`The pod is already injected (annotation ${SIDECAR_STATUS}).\n`);
  return 0;
}
