// Chooses and loads meshd's CA: plugged-in from ROOT_CA_DIR when ca-key.pem is there, else self-signed
// (created once, then kept in a CaKeyStore and rotated by RootRotator).
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { DirectoryCaKeyStore, type CaKeyStore } from './ca-key-store.js';
import { CA_FILES, CaMaterialError, loadSigningAuthority } from './ca-material.js';
import { systemClock, type Clock } from '../../core/index.js';
import { MeshCa, type WorkloadTtlOptions } from './mesh-ca.js';
import { RootRotator } from './root-rotator.js';
import { createSelfSignedRoot } from './self-signed-root.js';

/** Settings of the self-signed root (CERTAUTH_SELF_SIGNED_*, CERTAUTH_ENABLE_JITTER_FOR_ROOT_CERT_ROTATOR). */
export interface SelfSignedCaOptions {
  readonly rootTtlMs: number;
  readonly rsaKeySize: number;
  readonly checkIntervalMs: number;
  readonly enableJitter: boolean;
  readonly gracePeriodPercentile: number;
  /** USE_CACERTS_FOR_SELF_SIGNED_CA: the Kubernetes store writes Secret `cacerts` instead of `mesh-ca-secret`. */
  readonly useCacertsSecret: boolean;
}

/** Everything the CA core needs, read once from the environment by `caOptionsFromEnv`. */
export interface CaOptions {
  /** Trust domain of SPIFFE identities and organization of the self-signed root (mesh config `trustDomain`). */
  readonly trustDomain: string;
  /** ROOT_CA_DIR: plugged-in CA files. */
  readonly rootCaDir: string;
  readonly selfSigned: SelfSignedCaOptions;
  readonly workload: WorkloadTtlOptions;
}

/** Collaborators: where a self-signed CA is stored, and the clock of the CA and its rotator (default the system clock). */
export interface CreateMeshCaDeps {
  /** Storage of the self-signed material; ignored for a plugged-in CA. */
  readonly selfSignedStore: CaKeyStore;
  readonly clock?: Clock;
  readonly random?: () => number;
  readonly logger?: Logger;
}

/** The CA and, for a self-signed CA with rotation enabled, its (not yet started) rotator. */
export interface CreatedMeshCa {
  readonly ca: MeshCa;
  readonly rotator: RootRotator | undefined;
}

/** Name of the Secret the Kubernetes store will use for a self-signed CA. */
export function selfSignedSecretName(options: SelfSignedCaOptions): 'cacerts' | 'mesh-ca-secret' {
  return options.useCacertsSecret ? 'cacerts' : 'mesh-ca-secret';
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Loads the plugged-in CA from `options.rootCaDir` when its ca-key.pem exists (Istio's rule), else loads the
 * self-signed CA from `deps.selfSignedStore`, creating and storing a new root on first start.
 * Bad material throws `CaMaterialError` naming the file.
 */
export async function createMeshCa(options: CaOptions, deps: CreateMeshCaDeps): Promise<CreatedMeshCa> {
  const clock = deps.clock ?? systemClock;
  if (await exists(join(options.rootCaDir, CA_FILES.caKey))) {
    const material = await new DirectoryCaKeyStore(options.rootCaDir).load();
    if (!material) throw new CaMaterialError(`${join(options.rootCaDir, CA_FILES.caKey)}: disappeared while loading`);
    try {
      return { ca: new MeshCa(loadSigningAuthority(material, clock.date()), 'plugged-in', options.workload, clock), rotator: undefined };
    } catch (err) {
      if (err instanceof CaMaterialError) throw new CaMaterialError(`ROOT_CA_DIR ${options.rootCaDir}: ${err.message}`);
      throw err;
    }
  }
  let material = await deps.selfSignedStore.load();
  if (!material) {
    const root = await createSelfSignedRoot({
      trustDomain: options.trustDomain, ttlMs: options.selfSigned.rootTtlMs, rsaKeySize: options.selfSigned.rsaKeySize, now: clock.date(),
    });
    material = { caCertPem: root.certPem, caKeyPem: root.keyPem, certChainPem: '', rootCertPem: root.certPem };
    await deps.selfSignedStore.save(material);
    deps.logger?.info({ store: deps.selfSignedStore.describe() }, 'created self-signed root certificate');
  }
  let authority;
  try {
    authority = loadSigningAuthority(material, clock.date());
  } catch (err) {
    if (err instanceof CaMaterialError) throw new CaMaterialError(`self-signed CA in ${deps.selfSignedStore.describe()}: ${err.message}`);
    throw err;
  }
  const ca = new MeshCa(authority, 'self-signed', options.workload, clock);
  const rotator = options.selfSigned.checkIntervalMs > 0
    ? new RootRotator(
      {
        checkIntervalMs: options.selfSigned.checkIntervalMs,
        enableJitter: options.selfSigned.enableJitter,
        gracePeriodPercentile: options.selfSigned.gracePeriodPercentile,
        rootTtlMs: options.selfSigned.rootTtlMs,
        rsaKeySize: options.selfSigned.rsaKeySize,
        trustDomain: options.trustDomain,
      },
      { ca, store: deps.selfSignedStore, random: deps.random, logger: deps.logger },
    )
    : undefined;
  return { ca, rotator };
}
