/**
 * Secrets from files, as Envoy names them over SDS when a gateway or a DestinationRule points at
 * certificate files instead of a credential (Istio's file-mounted certificates): `file-cert:<chain>~<key>`
 * is a key and chain, `file-root:<ca>` a trust bundle. The files are read when first asked for and
 * watched; a change is read again and announced, so the SDS server pushes the new secret. A file that
 * cannot be read counts in `num_file_secret_failures_total` (the name is then not served), a watch that
 * cannot be set up in `num_file_watcher_failures_total` (the secret is served, but not refreshed).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import type { Logger } from 'pino';
import type { Metrics } from '../../core/index.js';

/** The prefix of a certificate-and-key file secret name. */
export const FILE_CERT_PREFIX = 'file-cert:';
/** The prefix of a trust-bundle file secret name. */
export const FILE_ROOT_PREFIX = 'file-root:';
/** Separates the chain and key paths of a `file-cert:` name. */
export const FILE_NAME_SEPARATOR = '~';
/**
 * The operating system's trust bundle (meshd names it for an origination without `caCertificates` under
 * VERIFY_CERTIFICATE_AT_CLIENT; `SYSTEM_ROOT_SECRET` in xds/generators/sidecar/cluster-tls.ts).
 */
export const FILE_ROOT_SYSTEM = 'file-root:system';
/** Where Linux distributions keep the system trust bundle (Go's crypto/x509 list); the first that exists is read. */
export const SYSTEM_CA_BUNDLES: readonly string[] = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/ca-bundle.pem',
  '/etc/pki/tls/cacert.pem',
  '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
  '/etc/ssl/cert.pem',
];

/** True when an SDS resource name names files. */
export function isFileSecretName(name: string): boolean {
  return name.startsWith(FILE_CERT_PREFIX) || name.startsWith(FILE_ROOT_PREFIX);
}

/** One file secret as read: its Secret message and a version that changes with the files' content. */
export interface FileSecret {
  readonly secret: Record<string, unknown>;
  readonly version: string;
}

interface Entry {
  value: FileSecret | undefined;
  readonly watchers: FSWatcher[];
}

/** The file secrets of one agent. */
export class FileSecrets {
  readonly #metrics: Metrics | undefined;
  readonly #log: Logger;
  readonly #entries = new Map<string, Entry>();
  readonly #listeners = new Set<(name: string) => void>();
  readonly #systemBundles: readonly string[];

  /** `systemBundles`: where to look for the system trust bundle (default SYSTEM_CA_BUNDLES). */
  constructor(options: { readonly logger: Logger; readonly metrics?: Metrics; readonly systemBundles?: readonly string[] }) {
    this.#log = options.logger;
    this.#metrics = options.metrics;
    this.#systemBundles = options.systemBundles ?? SYSTEM_CA_BUNDLES;
  }

  /** Calls `listener` with a name whenever its files change; returns the unsubscribe. */
  subscribe(listener: (name: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The secret a file name stands for (read and watched on first use); undefined when it cannot be read. */
  get(name: string): FileSecret | undefined {
    let entry = this.#entries.get(name);
    if (!entry) {
      entry = { value: this.#read(name), watchers: [] };
      this.#entries.set(name, entry);
      for (const path of this.#pathsOf(name)) this.#watch(name, path, entry);
    }
    return entry.value;
  }

  #watch(name: string, path: string, entry: Entry): void {
    try {
      const w = watch(path, { persistent: false }, () => {
        const next = this.#read(name);
        if (next?.version === entry.value?.version) return;
        entry.value = next;
        for (const l of this.#listeners) l(name);
      });
      w.on('error', (e) => this.#log.warn({ path, err: e.message }, 'file secret watch failed'));
      entry.watchers.push(w);
    } catch (e) {
      this.#metrics?.counter('num_file_watcher_failures_total').inc();
      this.#log.warn({ path, err: (e as Error).message }, 'cannot watch a file secret: it will not be refreshed');
    }
  }

  #read(name: string): FileSecret | undefined {
    try {
      const files = this.#pathsOf(name).map((p) => readFileSync(p));
      const version = createHash('sha256').update(Buffer.concat(files)).digest('hex').slice(0, 16);
      if (name.startsWith(FILE_ROOT_PREFIX)) return { version, secret: { name, validationContext: { trustedCa: { inlineBytes: files[0]! } } } };
      return { version, secret: { name, tlsCertificate: { certificateChain: { inlineBytes: files[0]! }, privateKey: { inlineBytes: files[1]! } } } };
    } catch (e) {
      this.#metrics?.counter('num_file_secret_failures_total').inc();
      this.#log.warn({ name, err: (e as Error).message }, 'cannot read a file secret');
      return undefined;
    }
  }

  /** The files of a file secret name: chain and key, or the trust bundle (the system's for FILE_ROOT_SYSTEM). */
  #pathsOf(name: string): string[] {
    if (name === FILE_ROOT_SYSTEM) return [this.#systemBundles.find((p) => existsSync(p)) ?? this.#systemBundles[0] ?? ''];
    return pathsOf(name);
  }

  /** Stops every watch. */
  close(): void {
    for (const e of this.#entries.values()) for (const w of e.watchers) w.close();
    this.#entries.clear();
    this.#listeners.clear();
  }
}

/** The files of a file secret name: chain and key, or the trust bundle. */
function pathsOf(name: string): string[] {
  if (name.startsWith(FILE_ROOT_PREFIX)) return [name.slice(FILE_ROOT_PREFIX.length)];
  const rest = name.slice(FILE_CERT_PREFIX.length);
  const at = rest.indexOf(FILE_NAME_SEPARATOR);
  return at < 0 ? [rest, ''] : [rest.slice(0, at), rest.slice(at + 1)];
}
