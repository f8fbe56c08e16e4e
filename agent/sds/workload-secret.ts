/** The workload's key, certificate chain and trust roots as the agent holds them, and where they come from. */
import { X509Certificate } from 'node:crypto';

/** A workload certificate with its key and the roots that verify peers. */
export interface WorkloadSecret {
  /** PEM chain, leaf first (without the root). */
  readonly certChainPem: string;
  readonly keyPem: string;
  /** PEM roots (the trust bundle) served as `ROOTCA`. */
  readonly rootCertPem: string;
  /** Validity of the leaf, wall-clock ms. */
  readonly notBeforeMs: number;
  readonly notAfterMs: number;
}

/** Something that issues workload secrets (meshd's CA, provisioned files, ...). */
export interface CertificateProvider {
  /** A human name for logs and errors (`CA at meshd:15012`). */
  readonly name: string;
  issue(): Promise<WorkloadSecret>;
  close?(): void;
}

/** Builds a `WorkloadSecret` from a chain (leaf first; `rootPem` may be the chain's last element). */
export function workloadSecretFrom(chainPem: readonly string[], keyPem: string, rootPem: string): WorkloadSecret {
  const leaf = new X509Certificate(chainPem[0]!);
  const chain = chainPem.filter((c) => c.trim() !== rootPem.trim());
  return {
    certChainPem: chain.map((c) => (c.endsWith('\n') ? c : `${c}\n`)).join(''),
    keyPem,
    rootCertPem: rootPem,
    notBeforeMs: Date.parse(leaf.validFrom),
    notAfterMs: Date.parse(leaf.validTo),
  };
}
