/**
 * meshd's webhooks on the HTTPS listener (:15017): `/inject` (INJECT_ENABLED) and `/validate`. The
 * injector follows ConfigMaps `mesh-sidecar-injector[-<REVISION>]` (`config`, `values`) and
 * `mesh[-<REVISION>]` (`mesh`) in meshd's namespace when a cluster is configured; otherwise it uses the
 * built-in templates and the `--meshConfig` file. Native sidecars: ENABLE_NATIVE_SIDECARS when set, else
 * the cluster's version (1.29 or later turns them on, as Istio decides). With a cluster and meshd's CA, the
 * caBundle patcher keeps INJECTION_WEBHOOK_CONFIG_NAME and VALIDATION_WEBHOOK_CONFIG_NAME on the CA's roots.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Subscription } from 'rxjs';
import { Informer, InformerFactory, ORCH_RESOURCES, type OrchClient } from '../../controllers/index.js';
import { WebhookCaBundleReconciler } from '../../reconcilers/index.js';
import { caRootBundle$ } from './leader-controllers.js';
import { secureSideCa } from './secure-side.js';
import type { Lifecycle, Logging, Metrics } from '../../core/index.js';
import { createWebhookHandler, injectorSettingsFrom, SidecarInjector, type InjectorTexts } from '../../webhooks/index.js';
import type { DiscoveryOptions } from './discovery-options.js';
import type { SecureSide } from './secure-side.js';

/** What meshd's webhooks need from its start. */
export interface MeshdWebhookDeps {
  readonly logging: Logging;
  readonly metrics: Metrics;
  readonly lifecycle: Lifecycle;
}

interface ConfigMapObject {
  metadata?: { name?: string; namespace?: string };
  data?: Record<string, string>;
}

/** Whether the cluster runs native sidecars by default: version 1.29 or later. */
export async function clusterSupportsNativeSidecars(orch: OrchClient): Promise<boolean> {
  const v = await orch.request<{ major?: string; minor?: string }>('GET', '/version');
  const major = Number.parseInt(v.major ?? '0', 10);
  const minor = Number.parseInt(v.minor ?? '0', 10);
  return major > 1 || (major === 1 && minor >= 29);
}

/** The running webhooks: the injector in use (undefined with INJECT_ENABLED=false). */
export interface MeshdWebhooks {
  injector(): SidecarInjector | undefined;
  /** Resolves once the injector has read the cluster's ConfigMaps (at once without a cluster). */
  readonly ready: Promise<void>;
}

/** Mounts `/inject` and `/validate` on the secure side's HTTPS listener and follows the injector's ConfigMaps. */
export async function startMeshdWebhooks(flags: DiscoveryOptions, deps: MeshdWebhookDeps, secure: SecureSide, orch: OrchClient | undefined): Promise<MeshdWebhooks> {
  const { env } = flags;
  const log = deps.logging.scope('validationServer');
  const enabled = env.bool('INJECT_ENABLED');
  const revision = env.string('REVISION') || 'default';
  let nativeSidecars = env.bool('ENABLE_NATIVE_SIDECARS');
  if (!env.isSet('ENABLE_NATIVE_SIDECARS') && orch && enabled) {
    try {
      nativeSidecars = await clusterSupportsNativeSidecars(orch);
    } catch (e) {
      log.warn({ err: (e as Error).message }, 'cannot read the cluster version: native sidecars off (set ENABLE_NATIVE_SIDECARS to choose)');
    }
  }
  // NOTE: templates' `env` reads meshd's declared variables only (as read once at start).
  const envValues = new Map(env.entries().map((e) => [e.name, e.raw]));
  const build = (texts: InjectorTexts): SidecarInjector => new SidecarInjector(injectorSettingsFrom(texts, { revision, nativeSidecars, env: (n) => envValues.get(n) }));
  const meshFile = flags.meshConfigFile !== '' && existsSync(flags.meshConfigFile) ? readFileSync(flags.meshConfigFile, 'utf8') : undefined;
  let current = build({ meshConfig: meshFile });
  let ready: Promise<void> = Promise.resolve();
  if (orch && enabled) {
    const suffix = revision === 'default' ? '' : `-${revision}`;
    const injectorName = `mesh-sidecar-injector${suffix}`;
    const meshName = `mesh${suffix}`;
    const informer = new Informer<ConfigMapObject & { metadata: { name: string } }>(orch, ORCH_RESOURCES.configMaps, {
      namespace: flags.namespace,
      onError: (e) => log.warn({ err: e.error instanceof Error ? e.error.message : String(e.error) }, 'ConfigMap watch failed; retrying'),
    });
    let resolveReady: () => void = () => undefined;
    ready = new Promise((r) => (resolveReady = r));
    const rebuild = (): void => {
      const inj = informer.get(`${flags.namespace}/${injectorName}`)?.data;
      const mesh = informer.get(`${flags.namespace}/${meshName}`)?.data;
      try {
        current = build({ config: inj?.['config'], values: inj?.['values'], meshConfig: mesh?.['mesh'] ?? meshFile });
        log.info({ configMap: injectorName, found: inj !== undefined }, 'injection configuration loaded');
      } catch (e) {
        log.error({ err: (e as Error).message }, 'injection configuration rejected; keeping the previous one');
      }
    };
    const subs: Subscription[] = [
      informer.subscribe((ev) => {
        const name = ev.object.metadata?.name;
        if ((name === injectorName || name === meshName) && informer.hasSynced()) rebuild();
      }),
      informer.synced$.subscribe((synced) => {
        if (!synced) return;
        rebuild();
        resolveReady();
      }),
    ];
    deps.lifecycle.add('injection-config', () => subs.forEach((s) => s.unsubscribe()));
  }
  secure.mountHttps(createWebhookHandler({ injector: () => (enabled ? current : undefined), metrics: deps.metrics, logger: log }));
  const ca = secureSideCa(secure);
  if (orch && ca) {
    // NOTE: not leader-elected: each revision's meshd patches its own configurations, and the writes are
    // idempotent (a conflict between replicas retries against the fresher cache).
    const patcher = new WebhookCaBundleReconciler({
      client: orch,
      informers: new InformerFactory(orch),
      rootCert$: caRootBundle$(ca),
      injectionConfigName: env.string('INJECTION_WEBHOOK_CONFIG_NAME') ?? 'mesh-sidecar-injector',
      validationConfigName: env.string('VALIDATION_WEBHOOK_CONFIG_NAME') ?? 'mesh-mesh-system',
      revision,
      logger: deps.logging.scope('validationController'),
      metrics: deps.metrics,
    });
    patcher.start();
    deps.lifecycle.add('webhook-ca-bundle', () => patcher.stop());
  }
  log.info({ inject: enabled, revision, nativeSidecars }, 'webhooks served on the HTTPS listener (/inject, /validate)');
  return { injector: () => (enabled ? current : undefined), ready };
}
