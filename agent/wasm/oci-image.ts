/**
 * Wasm modules from OCI images (`oci://registry/repository[:tag|@sha256:digest]`), in the two forms Istio's
 * agent reads: a Wasm artifact (config `application/vnd.module.wasm.config.v1+json`, one layer
 * `application/vnd.module.wasm.content.layer.v1+wasm` holding the module itself) and a container image
 * (OCI or Docker) whose one layer is a gzipped tar with `plugin.wasm`. The registry is spoken to by the
 * OCI distribution API: the manifest, then the layer's blob (its digest checked), with anonymous or basic
 * credentials exchanged for a bearer token when the registry asks for one (`WWW-Authenticate: Bearer`).
 */
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { Parser } from 'tar';

/** An `oci://` reference. */
export interface OciReference {
  /** `host[:port]`. */
  readonly registry: string;
  readonly repository: string;
  /** A tag, or a digest `sha256:<hex>`. */
  readonly reference: string;
}

/** Parses `oci://host[:port]/repo/path[:tag|@sha256:hex]` (tag `latest` when none). @throws Error naming the problem */
export function parseOciUrl(url: string): OciReference {
  const m = /^oci:\/\/([^/]+)\/(.+)$/.exec(url);
  if (!m) throw new Error(`${url}: not oci://<registry>/<repository>[:tag|@digest]`);
  const [, registry, rest] = m as unknown as [string, string, string];
  const at = rest.indexOf('@');
  if (at >= 0) {
    const digest = rest.slice(at + 1);
    if (!/^sha256:[0-9a-f]{64}$/.test(digest)) throw new Error(`${url}: digest ${JSON.stringify(digest)} is not sha256:<64 hex digits>`);
    return { registry, repository: rest.slice(0, at), reference: digest };
  }
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) return { registry, repository: rest.slice(0, colon), reference: rest.slice(colon + 1) };
  return { registry, repository: rest, reference: 'latest' };
}

/** One HTTP answer. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}

/** Makes one GET (the caller owns TLS, timeouts and the choice of http or https). */
export type HttpGet = (url: string, headers: Readonly<Record<string, string>>) => Promise<HttpAnswer>;

/** How to reach the registry. */
export interface OciFetchOptions {
  readonly get: HttpGet;
  /** `http` for registries in WASM_INSECURE_REGISTRIES that serve no TLS; `https` otherwise. */
  readonly scheme: 'http' | 'https';
  /** Basic credentials (an image pull secret's), sent to the token service or the registry. */
  readonly credentials?: { readonly username: string; readonly password: string };
}

const WASM_CONFIG = 'application/vnd.module.wasm.config.v1+json';
const WASM_LAYER = 'application/vnd.module.wasm.content.layer.v1+wasm';
const MANIFEST_TYPES = ['application/vnd.oci.image.manifest.v1+json', 'application/vnd.docker.distribution.manifest.v2+json'];

interface Manifest {
  readonly mediaType?: string;
  readonly config?: { readonly mediaType?: string };
  readonly layers?: readonly { readonly mediaType?: string; readonly digest?: string }[];
}

const sha256Of = (b: Buffer): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

function header(a: HttpAnswer, name: string): string | undefined {
  const v = a.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/** `Bearer realm="...",service="...",scope="..."` as a record. */
function bearerChallenge(text: string): Record<string, string> | undefined {
  if (!/^Bearer\s/i.test(text)) return undefined;
  const out: Record<string, string> = {};
  for (const m of text.slice(7).matchAll(/(\w+)="([^"]*)"/g)) out[m[1]!.toLowerCase()] = m[2]!;
  return out['realm'] ? out : undefined;
}

/** A registry session: remembers the bearer token once the registry asked for one. */
class Session {
  readonly #o: OciFetchOptions;
  readonly #basic: Record<string, string>;
  #auth: string | undefined;
  constructor(o: OciFetchOptions) {
    this.#o = o;
    this.#basic = o.credentials ? { authorization: `Basic ${Buffer.from(`${o.credentials.username}:${o.credentials.password}`).toString('base64')}` } : {};
    this.#auth = this.#basic['authorization'];
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    const first = await this.#o.get(url, { ...headers, ...(this.#auth ? { authorization: this.#auth } : {}) });
    if (first.status !== 401) return first;
    const challenge = bearerChallenge(header(first, 'www-authenticate') ?? '');
    if (!challenge) return first;
    const tokenUrl = new URL(challenge['realm']!);
    for (const k of ['service', 'scope']) if (challenge[k]) tokenUrl.searchParams.set(k, challenge[k]);
    const t = await this.#o.get(tokenUrl.href, this.#basic);
    if (t.status !== 200) throw new Error(`the token service ${tokenUrl.origin} answered HTTP ${t.status}`);
    const body = JSON.parse(t.body.toString()) as { token?: string; access_token?: string };
    const token = body.token ?? body.access_token;
    if (!token) throw new Error(`the token service ${tokenUrl.origin} sent no token`);
    this.#auth = `Bearer ${token}`;
    return this.#o.get(url, { ...headers, authorization: this.#auth });
  }
}

/** The `plugin.wasm` file of a gzipped tar layer. */
async function pluginWasmOf(layer: Buffer): Promise<Buffer> {
  const tarBytes = gunzipSync(layer);
  let found: Buffer | undefined;
  await new Promise<void>((resolve, reject) => {
    const parser = new Parser({
      onReadEntry: (entry) => {
        const name = entry.path.replace(/^\.\//, '');
        if (name !== 'plugin.wasm') {
          entry.resume();
          return;
        }
        const chunks: Buffer[] = [];
        entry.on('data', (c: Buffer) => chunks.push(c));
        entry.on('end', () => (found = Buffer.concat(chunks)));
      },
    });
    parser.on('end', () => resolve());
    parser.on('error', reject);
    parser.end(tarBytes);
  });
  if (!found) throw new Error('the image layer holds no plugin.wasm');
  return found;
}

/**
 * Fetches the Wasm module of an OCI image; returns it with the manifest's digest (what a WasmPlugin's
 * `sha256` names for an OCI image). @throws Error naming the registry's answer or what the image lacks
 */
export async function fetchOciWasm(ref: OciReference, o: OciFetchOptions): Promise<{ wasm: Buffer; manifestDigest: string }> {
  const session = new Session(o);
  const base = `${o.scheme}://${ref.registry}/v2/${ref.repository}`;
  const m = await session.get(`${base}/manifests/${ref.reference}`, { accept: MANIFEST_TYPES.join(', ') });
  if (m.status !== 200) throw new Error(`manifest ${ref.repository}:${ref.reference}: HTTP ${m.status} ${m.body.toString().slice(0, 200)}`);
  const manifestDigest = sha256Of(m.body);
  if (ref.reference.startsWith('sha256:') && ref.reference !== manifestDigest) throw new Error(`manifest digest is ${manifestDigest}, the reference names ${ref.reference}`);
  const manifest = JSON.parse(m.body.toString()) as Manifest;
  const layers = manifest.layers ?? [];
  const artifact = manifest.config?.mediaType === WASM_CONFIG;
  if (layers.length !== 1) throw new Error(`the image has ${layers.length} layers; a Wasm image has one`);
  const layer = layers[0]!;
  if (artifact && layer.mediaType !== WASM_LAYER) throw new Error(`the Wasm artifact's layer is ${String(layer.mediaType)}, want ${WASM_LAYER}`);
  if (!layer.digest) throw new Error('the layer has no digest');
  const blob = await session.get(`${base}/blobs/${layer.digest}`);
  if (blob.status !== 200) throw new Error(`blob ${layer.digest}: HTTP ${blob.status}`);
  const got = sha256Of(blob.body);
  if (got !== layer.digest) throw new Error(`blob digest is ${got}, the manifest names ${layer.digest}`);
  return { wasm: artifact ? blob.body : await pluginWasmOf(blob.body), manifestDigest };
}
