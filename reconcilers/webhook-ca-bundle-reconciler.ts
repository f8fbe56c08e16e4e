import { X509Certificate } from 'node:crypto';
import type { Logger } from 'pino';
import { distinctUntilChanged, type Observable, type Subscription } from 'rxjs';
import type { Metrics } from '../core/index.js';
import { ORCH_RESOURCES, objectPath, type Informer, type InformerFactory, type OrchTransport } from '../controllers/index.js';
import type { LeaderTask } from './leader/leader-elector.js';
import { ReconcileRunner } from './runtime/reconcile-runner.js';

/** Name of the reconciler: its log field and the `name` label of its queue metrics. */
export const WEBHOOK_CA_BUNDLE_RECONCILER_NAME = 'webhook-ca-bundle';

/** The revision label of webhook configurations. */
const REVISION_LABEL = 'mesh.io/rev';

interface WebhookConfig {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; resourceVersion?: string; labels?: Record<string, string> };
  webhooks?: { name?: string; clientConfig?: { caBundle?: string }; failurePolicy?: string }[];
}

/**
 * Why `bundle` cannot be a webhook's caBundle (no PEM certificate in it, or one that does not parse), or
 * undefined when every certificate in it parses. Istio's patcher checks its CA bundle the same way before
 * writing it.
 */
export function caBundleProblem(bundle: string): string | undefined {
  const blocks = bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) return 'the CA bundle holds no PEM certificate';
  for (const [i, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch (e) {
      return `certificate ${i + 1} of the CA bundle does not parse: ${(e as Error).message}`;
    }
  }
  return undefined;
}

/** Options of a {@link WebhookCaBundleReconciler}. */
export interface WebhookCaBundleReconcilerOptions {
  readonly client: OrchTransport;
  /** Shared informers of MutatingWebhookConfigurations and ValidatingWebhookConfigurations. */
  readonly informers: InformerFactory;
  /** The CA's trusted roots as one PEM bundle; each value replaces the last. */
  readonly rootCert$: Observable<string>;
  /** INJECTION_WEBHOOK_CONFIG_NAME; with a revision other than `default`, `<name>-<revision>` is patched. */
  readonly injectionConfigName: string;
  /** VALIDATION_WEBHOOK_CONFIG_NAME. */
  readonly validationConfigName: string;
  /** meshd's revision (`default` when none): configurations labelled `mesh.io/rev=<revision>` (tags) are patched too. */
  readonly revision: string;
  readonly logger?: Logger;
  /**
   * Counts `webhook_patch_*` (injection), `webhook_validation_config_*` (validation) and
   * `webhook_validation_config_load_error` (a root bundle that does not load) when given.
   */
  readonly metrics?: Metrics;
}

/**
 * Keeps the `caBundle` of meshd's webhook configurations equal to the CA's root bundle, as Istio's webhook
 * patcher does: the MutatingWebhookConfiguration INJECTION_WEBHOOK_CONFIG_NAME (`-<revision>` for a
 * revision) and those labelled with meshd's revision (its tags), for their `*sidecar-injector*` webhooks;
 * and the ValidatingWebhookConfiguration VALIDATION_WEBHOOK_CONFIG_NAME, whose `failurePolicy` moves to
 * `Fail` once meshd patches it (meshd serves `/validate` by then; installs create it with `Ignore`).
 * Writes carry the cached resourceVersion; a conflict retries with backoff.
 */
export class WebhookCaBundleReconciler implements LeaderTask {
  readonly #o: WebhookCaBundleReconcilerOptions;
  readonly #mutating: Informer<WebhookConfig>;
  readonly #validating: Informer<WebhookConfig>;
  readonly #failed = new Set<string>();
  /** The last bundle refused by {@link caBundleProblem}: counted and logged once, not per configuration. */
  #refusedBundle: string | undefined;
  #runner: ReconcileRunner | undefined;
  #subscriptions: Subscription[] = [];
  #bundle: string | undefined;

  constructor(options: WebhookCaBundleReconcilerOptions) {
    this.#o = options;
    this.#mutating = options.informers.informer<WebhookConfig>(ORCH_RESOURCES.mutatingWebhookConfigurations);
    this.#validating = options.informers.informer<WebhookConfig>(ORCH_RESOURCES.validatingWebhookConfigurations);
  }

  /** The MutatingWebhookConfiguration name this revision owns. */
  get injectionName(): string {
    const rev = this.#o.revision;
    return rev === '' || rev === 'default' ? this.#o.injectionConfigName : `${this.#o.injectionConfigName}-${rev}`;
  }

  #ownsMutating(cfg: WebhookConfig | undefined): boolean {
    const name = cfg?.metadata?.name;
    if (!name) return false;
    return name === this.injectionName || (cfg.metadata?.labels?.[REVISION_LABEL] === (this.#o.revision || 'default') && name !== this.injectionName && (cfg.webhooks ?? []).some((w) => (w.name ?? '').includes('sidecar-injector')));
  }

  /** Starts watching and patching. */
  start(): void {
    if (this.#runner) return;
    const runner = new ReconcileRunner({ name: WEBHOOK_CA_BUNDLE_RECONCILER_NAME, reconcile: (key, signal) => this.#reconcile(key, signal), logger: this.#o.logger });
    this.#runner = runner;
    const all = (): void => {
      for (const c of this.#mutating.list()) if (this.#ownsMutating(c)) runner.add(`mutating/${c.metadata!.name!}`);
      runner.add(`validating/${this.#o.validationConfigName}`);
    };
    this.#subscriptions = [
      this.#mutating.subscribe((e) => {
        if (e.type !== 'deleted' && this.#ownsMutating(e.object)) runner.add(`mutating/${e.object.metadata!.name!}`);
      }),
      this.#validating.subscribe((e) => {
        if (e.type !== 'deleted' && e.object.metadata?.name === this.#o.validationConfigName) runner.add(`validating/${this.#o.validationConfigName}`);
      }),
      this.#o.rootCert$.pipe(distinctUntilChanged()).subscribe((bundle) => {
        this.#bundle = bundle;
        all();
      }),
      runner.startWhenSynced([this.#mutating.synced$, this.#validating.synced$]),
    ];
  }

  /** Stops watching and waits for running patches. */
  async stop(): Promise<void> {
    for (const s of this.#subscriptions.splice(0)) s.unsubscribe();
    const runner = this.#runner;
    this.#runner = undefined;
    await runner?.stop();
  }

  async #reconcile(key: string, signal: AbortSignal): Promise<void> {
    const bundle = this.#bundle;
    if (bundle === undefined) return;
    const [kind, name] = [key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)];
    const mutating = kind === 'mutating';
    const cfg = (mutating ? this.#mutating : this.#validating).get(name);
    if (!cfg) return;
    const problem = caBundleProblem(bundle);
    if (problem !== undefined) {
      // NOTE: as Istio's patcher: a bundle that does not load is counted and not written; retrying cannot help
      // until the roots change (a new bundle reconciles every configuration again).
      if (this.#refusedBundle !== bundle) {
        this.#refusedBundle = bundle;
        this.#o.metrics?.counter('webhook_validation_config_load_error').inc();
        this.#o.logger?.error({ problem }, 'not patching webhook configurations: the CA bundle does not load');
      }
      return;
    }
    const caBundle = Buffer.from(bundle).toString('base64');
    let changed = false;
    const webhooks = (cfg.webhooks ?? []).map((w) => {
      if (mutating && !(w.name ?? '').includes('sidecar-injector')) return w;
      const next = { ...w, clientConfig: { ...w.clientConfig, caBundle } };
      if (!mutating) next.failurePolicy = 'Fail';
      if (w.clientConfig?.caBundle !== caBundle || next.failurePolicy !== w.failurePolicy) changed = true;
      return next;
    });
    if (!changed) return;
    const m = this.#o.metrics;
    const retry = this.#failed.has(key);
    if (mutating) {
      m?.counter('webhook_patch_attempts_total').inc();
      if (retry) m?.counter('webhook_patch_retries_total').inc();
    }
    const resource = mutating ? ORCH_RESOURCES.mutatingWebhookConfigurations : ORCH_RESOURCES.validatingWebhookConfigurations;
    try {
      await this.#o.client.request('PUT', objectPath(resource, name), { body: { ...cfg, webhooks }, signal });
    } catch (err) {
      this.#failed.add(key);
      m?.counter(mutating ? 'webhook_patch_failures_total' : 'webhook_validation_config_update_error').inc();
      throw err;
    }
    this.#failed.delete(key);
    if (!mutating) m?.counter('webhook_validation_config_updates').inc();
  }
}
