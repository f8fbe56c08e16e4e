// A Kubernetes Secret that holds meshd's self-signed CA (Istio's `istio-ca-secret` / `cacerts` layout), shared
// by every meshd replica and kept across restarts.
import { OrchApiError, type OrchTransport } from './orch-client.js';

/**
 * The four PEM files of a CA, field for field the `StoredCaMaterial` of ca/ (controllers may not import ca:
 * the shapes match structurally, so this store satisfies ca's `CaKeyStore`).
 */
export interface CaSecretMaterial {
  readonly caCertPem: string;
  readonly caKeyPem: string;
  readonly certChainPem: string;
  readonly rootCertPem: string;
}

/** The data keys of the Secret (the `cacerts` file names). */
export const CA_SECRET_KEYS = {
  caCertPem: 'ca-cert.pem',
  caKeyPem: 'ca-key.pem',
  certChainPem: 'cert-chain.pem',
  rootCertPem: 'root-cert.pem',
} as const;

/** The Secret type meshd writes for its own self-signed CA (Istio's `istio.io/ca-root`). */
export const CA_SECRET_TYPE = 'mesh.io/ca-root';

/** Thrown when the Secret exists but cannot be used; the message names the Secret and the key. */
export class CaSecretError extends Error {
  override readonly name = 'CaSecretError';
}

interface SecretObject {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  type?: string;
  data?: Record<string, string>;
}

/**
 * Reads and writes the CA Secret `name` in `namespace` through an orchestrator client.
 * - `load()`: undefined when the Secret does not exist or has no `ca-key.pem`; a Secret with the key but
 *   without `ca-cert.pem` or `root-cert.pem` is a `CaSecretError` naming the missing key.
 * - `createIfAbsent(m)`: creates the Secret; when another replica created it first (HTTP 409), returns
 *   the material that replica stored. So replicas racing at first start all end up with one root.
 * - `save(m)`: replaces the data, with the resourceVersion last seen (optimistic concurrency: a replica
 *   that rotated in between makes this fail with HTTP 409, and its root is adopted on the next load).
 */
export class OrchSecretCaStore {
  #resourceVersion: string | undefined;

  constructor(
    readonly client: OrchTransport,
    readonly namespace: string,
    readonly name: string,
  ) {}

  #path(): string {
    return `/api/v1/namespaces/${encodeURIComponent(this.namespace)}/secrets/${encodeURIComponent(this.name)}`;
  }

  async load(): Promise<CaSecretMaterial | undefined> {
    let secret: SecretObject;
    try {
      secret = await this.client.request<SecretObject>('GET', this.#path());
    } catch (err) {
      if (err instanceof OrchApiError && err.status === 404) return undefined;
      throw err;
    }
    this.#resourceVersion = secret.metadata?.resourceVersion;
    return this.#materialOf(secret);
  }

  async createIfAbsent(material: CaSecretMaterial): Promise<CaSecretMaterial> {
    try {
      const created = await this.client.request<SecretObject>('POST', `/api/v1/namespaces/${encodeURIComponent(this.namespace)}/secrets`, {
        body: this.#secretOf(material, undefined),
      });
      this.#resourceVersion = created.metadata?.resourceVersion;
      return material;
    } catch (err) {
      if (!(err instanceof OrchApiError && err.status === 409)) throw err;
    }
    const winner = await this.load();
    if (!winner) throw new CaSecretError(`${this.describe()}: exists (create conflicted) but holds no ${CA_SECRET_KEYS.caKeyPem}`);
    return winner;
  }

  async save(material: CaSecretMaterial): Promise<void> {
    if (this.#resourceVersion === undefined) {
      await this.createIfAbsent(material);
      return;
    }
    const updated = await this.client.request<SecretObject>('PUT', this.#path(), { body: this.#secretOf(material, this.#resourceVersion) });
    this.#resourceVersion = updated.metadata?.resourceVersion;
  }

  describe(): string {
    return `secret ${this.namespace}/${this.name}`;
  }

  #secretOf(material: CaSecretMaterial, resourceVersion: string | undefined): SecretObject & { apiVersion: string; kind: string } {
    const data: Record<string, string> = {};
    for (const [field, key] of Object.entries(CA_SECRET_KEYS)) data[key] = Buffer.from(material[field as keyof CaSecretMaterial], 'utf8').toString('base64');
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: this.name, namespace: this.namespace, ...(resourceVersion ? { resourceVersion } : {}) },
      type: this.name === 'cacerts' ? 'Opaque' : CA_SECRET_TYPE,
      data,
    };
  }

  #materialOf(secret: SecretObject): CaSecretMaterial | undefined {
    const data = secret.data ?? {};
    const text = (key: string): string | undefined => (data[key] === undefined ? undefined : Buffer.from(data[key], 'base64').toString('utf8'));
    const caKeyPem = text(CA_SECRET_KEYS.caKeyPem);
    if (caKeyPem === undefined) return undefined;
    const required = (key: string): string => {
      const value = text(key);
      if (value === undefined) throw new CaSecretError(`${this.describe()}: has ${CA_SECRET_KEYS.caKeyPem} but no ${key}`);
      return value;
    };
    return {
      caKeyPem,
      caCertPem: required(CA_SECRET_KEYS.caCertPem),
      certChainPem: text(CA_SECRET_KEYS.certChainPem) ?? '',
      rootCertPem: required(CA_SECRET_KEYS.rootCertPem),
    };
  }
}
