/**
 * The fuzz surface of meshd's webhooks: AdmissionReviews for `/inject` (pods with hostile annotations,
 * labels, containers, probes, ports) and `/validate` (the crds corpus with hostile mutations), plus
 * malformed bodies and paths, POSTed over real HTTP to `createWebhookHandler` on 127.0.0.1:0 with the
 * default injector. Each must get an AdmissionReview answer: allowed (an injection patch must apply to
 * the pod it was made for) or refused with a message naming why; a 500, a non-JSON answer or no answer
 * within the bound is a crash or a hang. Shaped as hack/fuzz's `FuzzSurface`.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { pino } from 'pino';
import { createMetrics } from '../../core/index.js';
import { loadCorpus } from '../../crds/index.js';
import { applyPatch, type JsonPatchOperation } from '../json-patch.js';
import { defaultInjectorSettings, SidecarInjector } from '../sidecar-injector.js';
import { createWebhookHandler } from '../webhook-handler.js';

/** One request: a path and a body. */
export interface WebhookFuzzInput {
  readonly path: string;
  readonly body: string;
  /** The object the review carries, when the body is a review (to apply an injection patch to). */
  readonly object?: unknown;
}

/** The running surface. */
export interface WebhookFuzzSurface {
  readonly name: string;
  readonly arbitrary: fc.Arbitrary<WebhookFuzzInput>;
  /** Resolves with `accepted`, `patched` or the refusal's reason; rejects with `property: ...` or `hang: ...`. */
  check(input: WebhookFuzzInput): Promise<string>;
  /** A plain pod is still injected. */
  healthy(): Promise<void>;
  close(): Promise<void>;
}

// NOTE: "URI malformed" and "Invalid URL" are decodeURIComponent's and URL's own messages: they name neither the
// part of the request (path, parameter) nor its text.
const UNCLEAR = /Cannot read propert|is not a function|is not iterable|Maximum call stack|\[object Object\]|\bNaN\b|\bundefined\b|^URI malformed$|^Invalid URL$/;

type Path = readonly (string | number)[];

function paths(v: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...prefix, i], out));
  else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) paths(x, [...prefix, k], out);
  return out;
}

/**
 * `base` with each mutation (`at`: which path, modulo their count) replaced by `value` or deleted.
 * NOTE: a small copy of crds/testing/json-mutation.ts: webhooks/ may not import crds/'s test helpers.
 */
function mutate(base: unknown, mutations: readonly { at: number; del: boolean; value: unknown }[]): unknown {
  let root = JSON.parse(JSON.stringify(base)) as unknown;
  for (const m of mutations) {
    const all = paths(root);
    const path = all[m.at % all.length]!;
    const value = JSON.parse(JSON.stringify(m.value ?? null)) as unknown;
    if (path.length === 0) {
      root = m.del ? {} : value;
      continue;
    }
    const parent = path.slice(0, -1).reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], root) as Record<string | number, unknown>;
    const key = path[path.length - 1]!;
    if (m.del && Array.isArray(parent)) parent.splice(key as number, 1);
    else if (m.del) delete parent[key];
    else Object.defineProperty(parent, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return root;
}

const POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { generateName: 'web-', namespace: 'app', labels: { app: 'web', version: 'v1' }, annotations: { 'sidecar.mesh.io/inject': 'true' } },
  spec: {
    serviceAccountName: 'web',
    containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 8080, name: 'http' }], readinessProbe: { httpGet: { path: '/ready', port: 8080 } } }],
    initContainers: [{ name: 'init', image: 'busybox' }],
    volumes: [{ name: 'data', emptyDir: {} }],
  },
};

/** Annotation keys the injector reads, for hostile values. */
const ANNOTATIONS = [
  'sidecar.mesh.io/inject', 'sidecar.mesh.io/status', 'sidecar.mesh.io/proxyImage', 'sidecar.mesh.io/proxyCPU', 'sidecar.mesh.io/proxyMemory',
  'sidecar.mesh.io/interceptionMode', 'sidecar.mesh.io/rewriteAppHTTPProbers', 'traffic.sidecar.mesh.io/includeOutboundIPRanges',
  'traffic.sidecar.mesh.io/excludeInboundPorts', 'traffic.sidecar.mesh.io/includeInboundPorts', 'proxy.mesh.io/config', 'inject.mesh.io/templates',
  'sidecar.mesh.io/userVolume', 'sidecar.mesh.io/userVolumeMount', 'status.sidecar.mesh.io/port', 'readiness.status.sidecar.mesh.io/initialDelaySeconds',
  'prometheus.io/scrape', 'prometheus.io/port', 'kubectl.kubernetes.io/default-container',
];

/** The arbitrary of {@link WebhookFuzzInput}. */
export function webhookFuzzArbitrary(): fc.Arbitrary<WebhookFuzzInput> {
  const str = fc.string({ unit: 'binary', maxLength: 30 });
  const hostile = fc.oneof(
    fc.constantFrom(null, true, 0, -1, 1e308, '', '*', '{}', '[]', '{"a":', '0.0.0.0/0', '65536', 'true', 'false', '{{ .Values }}', 'a'.repeat(300)),
    fc.constantFrom({}, [], [null], { name: 'x' }, [{ name: 'x' }]),
    fc.jsonValue({ maxDepth: 2 }),
    str,
  );
  const mutations = fc.array(fc.record({ at: fc.nat(), del: fc.boolean(), value: hostile }), { maxLength: 4 });
  const annotations = fc.dictionary(fc.oneof(fc.constantFrom(...ANNOTATIONS), str), fc.oneof(fc.constantFrom('true', 'false', '', '1', '-1', '8080,9090', '*', '10.0.0.0/8', 'REDIRECT', 'TPROXY', '{"holdApplicationUntilProxyStarts": true}', 'sidecar,grpc-agent', 'nope'), str), { maxKeys: 4 });
  const pod = fc.tuple(annotations, mutations).map(([a, ms]) => {
    const p = JSON.parse(JSON.stringify(POD)) as typeof POD;
    Object.assign(p.metadata.annotations, a);
    return mutate(p, ms);
  });
  const corpus = loadCorpus().map((d) => d.object);
  const config = fc.tuple(fc.constantFrom(...corpus), mutations).map(([o, ms]) => mutate(o, ms));
  const kindOf = (o: unknown): { group: string; version: string; kind: string } => {
    const r = (o ?? {}) as { apiVersion?: unknown; kind?: unknown };
    const api = typeof r.apiVersion === 'string' ? r.apiVersion : '';
    const [group, version] = api.includes('/') ? api.split('/') : ['', api];
    return { group: group ?? '', version: version ?? '', kind: typeof r.kind === 'string' ? r.kind : '' };
  };
  const review = (object: unknown, podLike: boolean, extra: Record<string, unknown>): string => {
    const kind = podLike ? { group: '', version: 'v1', kind: 'Pod' } : kindOf(object);
    const resource = podLike ? { group: '', version: 'v1', resource: 'pods' } : { group: kind.group, version: kind.version, resource: `${kind.kind.toLowerCase()}s` };
    return JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u-1', kind, resource, namespace: 'app', operation: 'CREATE', object, ...extra } });
  };
  const reviewExtra = fc.oneof({ weight: 6, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('uid', 'operation', 'namespace', 'kind', 'resource', 'dryRun'), hostile, { maxKeys: 2 }) });
  // NOTE: path text with good, bad and cut percent-escapes (%ZZ, %E0 alone, a trailing %).
  const escapes = fc
    .array(fc.oneof(fc.constantFrom('a', '-', '.', '%', '%Z', '%E0', '%A4', '%2F', '%25', '%C3%A9', '%F0%9F%98'), fc.integer({ min: 0, max: 255 }).map((b) => `%${b.toString(16).padStart(2, '0')}`)), { maxLength: 6 })
    .map((a) => a.join(''));
  const injectPath = fc.oneof(
    { weight: 6, arbitrary: fc.constant('/inject') },
    {
      weight: 1,
      arbitrary: fc.constantFrom('/inject/cluster/c1/net/n1', '/inject/cluster', '/inject/x/y', '/inject/cluster/%E0%A4%A', '/inject/net/%ZZ', '/inject/', '/inject?timeout=10s',
        '/inject?timeout=%ZZ', '/inject/cluster/c%2F1/net/%', '//', '///', '//[', '/./inject/../inject', '/inject/%2e%2e/validate'),
    },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('/inject/cluster/', '/inject/net/', '/inject?timeout=', '/inject/cluster/c1/net/'), escapes).map(([p, x]) => `${p}${x}`) },
  );
  const inject = fc.tuple(injectPath, pod, reviewExtra).map(([path, object, extra]) => ({ path, body: review(object, true, extra), object }));
  const validatePath = fc.oneof({ weight: 8, arbitrary: fc.constant('/validate') }, { weight: 1, arbitrary: fc.constantFrom('/validate/', '/validate?timeout=%E0', '/validate?dryRun=%ZZ%', '//validate') });
  const validate = fc.tuple(validatePath, config, reviewExtra).map(([path, object, extra]) => ({ path, body: review(object, false, extra), object }));
  const envelope = fc.record({ apiVersion: fc.oneof(fc.constant('admission.k8s.io/v1'), hostile), kind: fc.oneof(fc.constant('AdmissionReview'), hostile), request: fc.oneof(hostile, fc.record({ uid: hostile, object: pod })) }, { requiredKeys: [] });
  const garbage = fc.tuple(fc.constantFrom('/inject', '/validate'), fc.oneof(
    envelope.map((e) => JSON.stringify(e)),
    str,
    fc.constantFrom('', 'null', '[]', '{', '{"kind":"AdmissionReview"', `{"a":${'['.repeat(5000)}`, '\u0000'),
    fc.tuple(pod, fc.nat()).map(([p, n]) => {
      const t = review(p, true, {});
      return t.slice(0, n % t.length);
    }),
  )).map(([path, body]) => ({ path, body }));
  return fc.oneof({ weight: 4, arbitrary: inject }, { weight: 3, arbitrary: validate }, { weight: 2, arbitrary: garbage });
}

function reasonOf(status: number, message: string): string {
  return `${status}: ${message.replace(/"(?:[^"\\]|\\.)*"/g, '"…"').replace(/\d+/g, 'N').slice(0, 70)}`;
}

/** Starts the webhook server; `boundMs` bounds each request (default 10 s). */
export async function startWebhookFuzzSurface(opts: { readonly boundMs?: number } = {}): Promise<WebhookFuzzSurface> {
  const boundMs = opts.boundMs ?? 10_000;
  const injector = new SidecarInjector(defaultInjectorSettings());
  const handler = createWebhookHandler({ injector: () => injector, metrics: createMetrics('pilot-discovery', { processMetrics: false }), logger: pino({ level: 'silent' }) });
  const server: Server = createServer((req, res) => {
    // NOTE: as meshd's HTTPS listener does for a path it does not serve (`//validate` is the path `/`).
    if (!handler(req, res)) res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `no handler for ${req.url ?? ''}` }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;

  const post = (path: string, body: string): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json' }, timeout: boundMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      });
      req.on('timeout', () => req.destroy(new Error(`hang: no answer within ${boundMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });

  const check = async (input: WebhookFuzzInput): Promise<string> => {
    const { status, text } = await post(input.path, input.body);
    if (status >= 500) throw new Error(`property: HTTP ${status}: ${text.slice(0, 300)}`);
    let answer: { response?: { uid?: unknown; allowed?: unknown; patch?: unknown; status?: { message?: unknown } }; error?: unknown };
    try {
      answer = JSON.parse(text) as typeof answer;
    } catch {
      throw new Error(`property: HTTP ${status} answer is not JSON: ${text.slice(0, 200)}`);
    }
    const r = answer.response;
    if (!r) {
      if (typeof answer.error !== 'string') throw new Error(`property: HTTP ${status} answer without a response: ${text.slice(0, 200)}`);
      return reasonOf(status, answer.error);
    }
    if (typeof r.uid !== 'string' || typeof r.allowed !== 'boolean') throw new Error(`property: malformed AdmissionReview response: ${text.slice(0, 200)}`);
    if (!r.allowed) {
      const m = r.status?.message;
      if (typeof m !== 'string' || m.trim().length < 6 || UNCLEAR.test(m)) throw new Error(`property: unclear refusal: ${JSON.stringify(m).slice(0, 300)}`);
      return reasonOf(status, m);
    }
    if (typeof r.patch === 'string') {
      const ops = JSON.parse(Buffer.from(r.patch, 'base64').toString()) as JsonPatchOperation[];
      // NOTE: a garbage envelope that happens to be a valid review carries no `object` of its own: the pod is
      // the one the server read from the body.
      const object = input.object ?? (JSON.parse(input.body) as { request?: { object?: unknown } }).request?.object;
      try {
        applyPatch(object, ops);
      } catch (e) {
        throw new Error(`property: the injection patch does not apply to its pod: ${(e as Error).message}`);
      }
      return 'patched';
    }
    return 'accepted';
  };

  return {
    name: 'webhooks',
    arbitrary: webhookFuzzArbitrary(),
    check,
    healthy: async () => {
      const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'h', kind: { group: '', version: 'v1', kind: 'Pod' }, resource: { group: '', version: 'v1', resource: 'pods' }, namespace: 'app', operation: 'CREATE', object: POD } });
      const r = await check({ path: '/inject', body, object: POD });
      if (r !== 'patched') throw new Error(`property: a plain pod was not injected after the run: ${r}`);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
