// Where a self-signed CA keeps its root key and certificates between restarts.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CA_FILES, type StoredCaMaterial } from './ca-material.js';

/**
 * Pluggable storage of the self-signed CA's material. Implementations: `MemoryCaKeyStore` (tests, single
 * process), `DirectoryCaKeyStore` (the four `cacerts` files in a folder).
 * NOTE: the Kubernetes Secret store (`cacerts` when USE_CACERTS_FOR_SELF_SIGNED_CA, else `mesh-ca-secret`)
 * arrives with the Kubernetes issue and implements this same interface.
 */
export interface CaKeyStore {
  /** The stored material, or undefined when none was stored yet. */
  load(): Promise<StoredCaMaterial | undefined>;
  /** Replaces the stored material (after first creation and after each root rotation). */
  save(material: StoredCaMaterial): Promise<void>;
  /** Where the material lives, for messages, e.g. `directory /var/run/ca`. */
  describe(): string;
}

/** Keeps material in memory; `load()` is undefined until the first `save()` or a seed. */
export class MemoryCaKeyStore implements CaKeyStore {
  #material: StoredCaMaterial | undefined;

  constructor(seed?: StoredCaMaterial) {
    this.#material = seed;
  }

  load(): Promise<StoredCaMaterial | undefined> {
    return Promise.resolve(this.#material);
  }

  save(material: StoredCaMaterial): Promise<void> {
    this.#material = material;
    return Promise.resolve();
  }

  describe(): string {
    return 'memory';
  }
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Stores the four `cacerts` files (ca-cert.pem, ca-key.pem, cert-chain.pem, root-cert.pem) in a folder.
 * Each file is written to a temporary name and renamed, the key with mode 0600.
 * `load()` is undefined when ca-key.pem is absent; any other missing file is an error naming it.
 */
export class DirectoryCaKeyStore implements CaKeyStore {
  constructor(readonly directory: string) {}

  async load(): Promise<StoredCaMaterial | undefined> {
    const key = await readOptional(join(this.directory, CA_FILES.caKey));
    if (key === undefined) return undefined;
    const read = async (file: string): Promise<string> => {
      const text = await readOptional(join(this.directory, file));
      if (text === undefined) throw new Error(`${join(this.directory, file)}: missing while ${CA_FILES.caKey} exists`);
      return text;
    };
    return {
      caKeyPem: key,
      caCertPem: await read(CA_FILES.caCert),
      certChainPem: (await readOptional(join(this.directory, CA_FILES.certChain))) ?? '',
      rootCertPem: await read(CA_FILES.rootCert),
    };
  }

  async save(material: StoredCaMaterial): Promise<void> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    const files: [string, string, number][] = [
      [CA_FILES.caCert, material.caCertPem, 0o644],
      [CA_FILES.certChain, material.certChainPem, 0o644],
      [CA_FILES.rootCert, material.rootCertPem, 0o644],
      [CA_FILES.caKey, material.caKeyPem, 0o600], // last: its presence marks a complete set
    ];
    for (const [file, text, mode] of files) {
      const path = join(this.directory, file);
      await writeFile(`${path}.tmp`, text, { mode });
      await rename(`${path}.tmp`, path);
    }
  }

  describe(): string {
    return `directory ${this.directory}`;
  }
}
