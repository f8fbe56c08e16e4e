/**
 * Remote injection for `meshctl orch-inject`, as istioctl's external injector: with no local injector
 * files, each pod goes in an AdmissionReview to the cluster's injection webhook of the revision (a webhook
 * of a MutatingWebhookConfiguration labelled `mesh.io/rev=<revision>`), and the JSONPatch it answers is
 * applied here, so the output is what the running meshd would store. A webhook at a URL is called there; one
 * behind a Service is reached on a running pod of the Service through the API server's port-forward (the
 * pod dialer of inspect/reach), with TLS to the Service's DNS name, as istioctl does.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import type { OrchClient } from '../../controllers/index.js';
import { applyPatch, InjectionError, type InjectionResult, type JsonObject, type JsonPatchOperation, type PodInjector } from '../../webhooks/index.js';

/** The revision label of injection webhook configurations. */
const REVISION_LABEL = 'mesh.io/rev';

/** Where an injection webhook is served, from its `clientConfig`. */
export interface InjectionWebhook {
  /** `<configuration>/<webhook>`. */
  readonly name: string;
  readonly url?: string;
  readonly service?: { readonly namespace: string; readonly name: string; readonly port: number; readonly path: string };
  /** PEM of `clientConfig.caBundle`, when set. */
  readonly caBundle?: string;
}

interface WebhookConfigurationList {
  items?: { metadata?: { name?: string }; webhooks?: { name?: string; clientConfig?: { url?: string; caBundle?: string; service?: { namespace?: string; name?: string; port?: number; path?: string } } }[] }[];
}

/**
 * The first injection webhook of `revision` (`default` when empty) that names a URL or a Service; with
 * `injectorAddress`, only a URL containing it (istioctl's `--xds-address` selection). Undefined when none.
 */
export async function findInjectionWebhook(client: OrchClient, revision: string, injectorAddress: string): Promise<InjectionWebhook | undefined> {
  const rev = revision === '' ? 'default' : revision;
  const list = await client.request<WebhookConfigurationList>('GET', `/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations?labelSelector=${encodeURIComponent(`${REVISION_LABEL}=${rev}`)}`);
  for (const cfg of list.items ?? []) {
    for (const hook of cfg.webhooks ?? []) {
      const cc = hook.clientConfig ?? {};
      if (cc.url === undefined && cc.service === undefined) continue;
      if (injectorAddress !== '' && !(cc.url ?? '').includes(injectorAddress)) continue;
      const caBundle = cc.caBundle ? Buffer.from(cc.caBundle, 'base64').toString() : undefined;
      const name = `${cfg.metadata?.name ?? '?'}/${hook.name ?? '?'}`;
      if (cc.url !== undefined) return { name, url: cc.url, ...(caBundle ? { caBundle } : {}) };
      const s = cc.service!;
      return { name, service: { namespace: s.namespace ?? '', name: s.name ?? '', port: s.port ?? 443, path: s.path ?? '/' }, ...(caBundle ? { caBundle } : {}) };
    }
  }
  return undefined;
}

/** How the webhook is called. */
export interface RemoteInjectorOptions {
  /** `--insecure`: no server certificate check. */
  readonly insecure: boolean;
  /** `--authority`: the TLS server name to verify, instead of the URL's host. */
  readonly authority: string;
  /** `--timeout` per call. */
  readonly timeoutMs: number;
}

/** How a webhook behind a Service is reached: a stream to the chosen pod's target port. */
export interface ServiceRoute {
  readonly dial: () => Promise<Duplex>;
  /** `<service>.<namespace>.svc`, the name its serving certificate carries. */
  readonly serverName: string;
  /** `pod <name>.<namespace> port <n>`, for messages. */
  readonly where: string;
}

/** Injects pods by calling an injection webhook at a URL or behind a Service (see the file comment). */
export class RemoteInjector implements PodInjector {
  readonly #webhook: InjectionWebhook;
  readonly #o: RemoteInjectorOptions;
  readonly #route: ServiceRoute | undefined;

  /** `route` is required for a webhook behind a Service. */
  constructor(webhook: InjectionWebhook, options: RemoteInjectorOptions, route?: ServiceRoute) {
    if (webhook.url === undefined && route === undefined) throw new Error(`webhook ${webhook.name}: a Service webhook needs a route to its pod`);
    this.#webhook = webhook;
    this.#o = options;
    this.#route = route;
  }

  /** Sends `pod` to the webhook and applies its patch. @throws InjectionError naming the webhook and what it said */
  async inject(pod: JsonObject, namespace: string): Promise<InjectionResult> {
    const meta = (pod['metadata'] ?? {}) as { name?: string };
    const review = {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: randomUUID(),
        kind: { group: '', version: 'v1', kind: 'Pod' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        ...(meta.name ? { name: meta.name } : {}),
        namespace,
        operation: 'CREATE',
        object: pod,
      },
    };
    const body = await this.#post(JSON.stringify(review));
    let response: { allowed?: boolean; patch?: string; status?: { message?: string } } | undefined;
    try {
      response = (JSON.parse(body) as { response?: typeof response }).response;
    } catch (e) {
      throw new InjectionError(`webhook ${this.#webhook.name}: the answer is not JSON: ${(e as Error).message}`);
    }
    if (!response) throw new InjectionError(`webhook ${this.#webhook.name}: the answer has no response`);
    if (response.allowed !== true) throw new InjectionError(`webhook ${this.#webhook.name} refused the pod: ${response.status?.message ?? 'no reason given'}`);
    if (!response.patch) return { injected: false, pod, decision: { inject: false, reason: `the webhook ${this.#webhook.name} made no change` } };
    let ops: JsonPatchOperation[];
    try {
      ops = JSON.parse(Buffer.from(response.patch, 'base64').toString()) as JsonPatchOperation[];
    } catch (e) {
      throw new InjectionError(`webhook ${this.#webhook.name}: the patch is not JSON: ${(e as Error).message}`);
    }
    const patched = applyPatch(pod, ops) as JsonObject;
    return { injected: true, pod: patched, decision: { inject: true, reason: `injected by the webhook ${this.#webhook.name}` }, templates: [] };
  }

  async #post(body: string): Promise<string> {
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    if (this.#webhook.url !== undefined) {
      const url = new URL(this.#webhook.url);
      const tls = url.protocol === 'https:';
      const options = {
        method: 'POST',
        headers,
        timeout: this.#o.timeoutMs,
        ...(tls ? { ca: this.#webhook.caBundle, rejectUnauthorized: !this.#o.insecure, ...(this.#o.authority !== '' ? { servername: this.#o.authority } : {}) } : {}),
      };
      return this.#exchange(url.href, (cb) => (tls ? httpsRequest : httpRequest)(url, options, cb), body);
    }
    const route = this.#route!;
    const s = this.#webhook.service!;
    let stream: Duplex;
    try {
      stream = await route.dial();
    } catch (e) {
      throw new InjectionError(`webhook ${this.#webhook.name} (${route.where}): ${(e as Error).message}`);
    }
    const servername = this.#o.authority !== '' ? this.#o.authority : route.serverName;
    const socket = tlsConnect({ socket: stream, servername, ...(this.#webhook.caBundle ? { ca: this.#webhook.caBundle } : {}), rejectUnauthorized: !this.#o.insecure });
    const options = { method: 'POST', host: servername, path: s.path, headers: { ...headers, connection: 'close' }, timeout: this.#o.timeoutMs, createConnection: () => socket };
    try {
      return await this.#exchange(`https://${servername}${s.path} (${route.where})`, (cb) => httpRequest(options, cb), body);
    } finally {
      socket.destroy();
      stream.destroy();
    }
  }

  #exchange(where: string, send: (cb: (res: IncomingMessage) => void) => ClientRequest, body: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = send((res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if ((res.statusCode ?? 0) >= 300) reject(new InjectionError(`webhook ${this.#webhook.name} (${where}) answered HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
          else resolve(text);
        });
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.#o.timeoutMs} ms (--timeout)`)));
      req.on('error', (e) => reject(new InjectionError(`webhook ${this.#webhook.name} (${where}): ${e.message}`)));
      req.end(body);
    });
  }
}
