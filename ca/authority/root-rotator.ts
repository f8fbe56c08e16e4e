// Renews the self-signed root inside its grace period, keeping older roots trusted until they expire.
import type { Logger } from 'pino';
import type { CaKeyStore } from './ca-key-store.js';
import { loadSigningAuthority, type SigningAuthority, type StoredCaMaterial } from './ca-material.js';
import type { MeshCa } from './mesh-ca.js';
import { createSelfSignedRoot } from './self-signed-root.js';

/** Settings of the rotator (the CERTAUTH_SELF_SIGNED_* variables). */
export interface RootRotatorOptions {
  /** CERTAUTH_SELF_SIGNED_ROOT_CERT_CHECK_INTERVAL, ms; zero or negative disables rotation. */
  readonly checkIntervalMs: number;
  /** CERTAUTH_ENABLE_JITTER_FOR_ROOT_CERT_ROTATOR: first check after a random delay below the interval. */
  readonly enableJitter: boolean;
  /** CERTAUTH_SELF_SIGNED_ROOT_CERT_GRACE_PERIOD_PERCENTILE: rotate when this % of the lifetime remains. */
  readonly gracePeriodPercentile: number;
  /** Lifetime and key size of the new root (CERTAUTH_SELF_SIGNED_CA_CERT_TTL, _RSA_KEY_SIZE). */
  readonly rootTtlMs: number;
  readonly rsaKeySize: number;
  readonly trustDomain: string;
}

/** Collaborators of the rotator. Its checks run on the CA's clock (`ca.clock`), timers included. */
export interface RootRotatorDeps {
  readonly ca: MeshCa;
  readonly store: CaKeyStore;
  /** Random number in [0, 1) for the jitter; Math.random by default. */
  readonly random?: () => number;
  readonly logger?: Logger;
}

/** Result of one check. */
export type RotationOutcome = 'rotated' | 'adopted-stored' | 'pruned' | 'unchanged';

/** True when the certificate has at most `percentile`% of its lifetime left at `now`. */
export function inGracePeriod(notBefore: Date, notAfter: Date, percentile: number, now: Date): boolean {
  const lifetime = notAfter.getTime() - notBefore.getTime();
  return notAfter.getTime() - now.getTime() <= (lifetime * percentile) / 100;
}

/**
 * Checks the self-signed root every `checkIntervalMs` (first check jittered when enabled). A check first
 * adopts material another replica stored, then, inside the grace period, creates a new root and key,
 * stores `root-cert.pem` as new root + older unexpired roots, and swaps the CA's signing state. New
 * certificates chain to the new root; certificates from the old root keep verifying against the bundle.
 */
export class RootRotator {
  #cancel: (() => void) | undefined;
  #running: Promise<RotationOutcome> | undefined;
  #stopped = false;

  constructor(
    readonly options: RootRotatorOptions,
    readonly deps: RootRotatorDeps,
  ) {}

  /** Schedules the checks; does nothing when the interval is zero or negative. */
  start(): void {
    if (this.options.checkIntervalMs <= 0 || this.#cancel) return;
    this.#stopped = false;
    const first = this.options.enableJitter ? Math.floor((this.deps.random ?? Math.random)() * this.options.checkIntervalMs) : this.options.checkIntervalMs;
    this.#scheduleNext(first);
  }

  /** Cancels future checks; an in-flight check finishes. */
  stop(): void {
    this.#stopped = true;
    this.#cancel?.();
    this.#cancel = undefined;
  }

  #scheduleNext(delayMs: number): void {
    // NOTE: the timer does not keep the process alive (the servers and lifecycle do).
    this.#cancel = this.deps.ca.clock.setTimer(() => {
      this.#cancel = undefined;
      this.checkNow().then(
        () => undefined,
        (err: unknown) => this.deps.logger?.error({ err }, 'root certificate rotation check failed'),
      ).finally(() => {
        if (!this.#stopped) this.#scheduleNext(this.options.checkIntervalMs);
      });
    }, delayMs);
  }

  /** Runs one check now (concurrent calls share the in-flight check). */
  checkNow(): Promise<RotationOutcome> {
    this.#running ??= this.#check().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #check(): Promise<RotationOutcome> {
    const { ca, store, logger } = this.deps;
    const now = ca.clock.date();
    let outcome: RotationOutcome = 'unchanged';
    const stored = await store.load();
    let current: SigningAuthority = ca.authority;
    if (stored) {
      const fromStore = loadSigningAuthority(stored, now);
      if (fromStore.root.fingerprint256 !== current.root.fingerprint256) {
        current = fromStore;
        ca.replaceAuthority(current);
        outcome = 'adopted-stored';
      }
    }
    const root = current.root;
    if (inGracePeriod(new Date(root.validFrom), new Date(root.validTo), this.options.gracePeriodPercentile, now)) {
      const fresh = await createSelfSignedRoot({
        trustDomain: this.options.trustDomain,
        ttlMs: this.options.rootTtlMs,
        rsaKeySize: this.options.rsaKeySize,
        now,
      });
      const keep = current.trustedRoots.filter((r) => new Date(r.validTo) > now).map((r) => r.toString());
      const material: StoredCaMaterial = { caCertPem: fresh.certPem, caKeyPem: fresh.keyPem, certChainPem: '', rootCertPem: [fresh.certPem, ...keep].join('') };
      const authority = loadSigningAuthority(material, now);
      await store.save(material);
      ca.replaceAuthority(authority);
      logger?.info({ oldRootExpiry: root.validTo, newRootExpiry: authority.root.validTo, trustedRoots: authority.trustedRoots.length }, 'rotated self-signed root certificate');
      return 'rotated';
    }
    const unexpired = current.trustedRoots.filter((r) => new Date(r.validTo) > now);
    if (unexpired.length < current.trustedRoots.length) {
      ca.replaceAuthority({ ...current, trustedRoots: unexpired.length > 0 ? unexpired : [current.root] });
      return outcome === 'unchanged' ? 'pruned' : outcome;
    }
    return outcome;
  }
}
