// Workload private keys as pilot-agent makes them: RSA (WORKLOAD_RSA_KEY_SIZE) or ECDSA
// (ECC_SIGNATURE_ALGORITHM=ECDSA, ECC_CURVE P256/P384), PEM in PKCS#1/SEC1 or PKCS#8 (PKCS8_KEY).
import { generateKeyPair, type KeyObject } from 'node:crypto';
import type { Env } from '../../core/index.js';

/** How to make a workload key. */
export type WorkloadKeyOptions =
  | { readonly algorithm: 'RSA'; readonly rsaKeySize: number; readonly pkcs8: boolean }
  | { readonly algorithm: 'ECDSA'; readonly curve: 'P256' | 'P384'; readonly pkcs8: boolean };

/** A workload key and its PEM. */
export interface WorkloadKey {
  readonly privateKey: KeyObject;
  readonly keyPem: string;
}

/** Thrown for a bad key setting; names the variable. */
export class WorkloadKeyOptionsError extends Error {
  override readonly name = 'WorkloadKeyOptionsError';
}

/** Reads WORKLOAD_RSA_KEY_SIZE, ECC_SIGNATURE_ALGORITHM, ECC_CURVE and PKCS8_KEY from pilot-agent's env. */
export function workloadKeyOptionsFromEnv(env: Env): WorkloadKeyOptions {
  const pkcs8 = env.bool('PKCS8_KEY');
  const ecc = env.string('ECC_SIGNATURE_ALGORITHM') ?? '';
  if (ecc === '') {
    const rsaKeySize = env.int('WORKLOAD_RSA_KEY_SIZE');
    if (rsaKeySize < 2048) throw new WorkloadKeyOptionsError(`WORKLOAD_RSA_KEY_SIZE=${rsaKeySize}: use 2048 or more`);
    return { algorithm: 'RSA', rsaKeySize, pkcs8 };
  }
  if (ecc !== 'ECDSA') throw new WorkloadKeyOptionsError(`ECC_SIGNATURE_ALGORITHM="${ecc}": unknown algorithm (use ECDSA, or leave unset for RSA)`);
  const curve = env.string('ECC_CURVE') ?? 'P256';
  if (curve !== 'P256' && curve !== 'P384') throw new WorkloadKeyOptionsError(`ECC_CURVE="${curve}": unknown curve (use P256 or P384)`);
  return { algorithm: 'ECDSA', curve, pkcs8 };
}

/** Generates a workload key off the event loop. */
export function generateWorkloadKey(options: WorkloadKeyOptions): Promise<WorkloadKey> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, _publicKey: KeyObject, privateKey: KeyObject): void => {
      if (err) return reject(err);
      const type = options.pkcs8 ? 'pkcs8' : options.algorithm === 'RSA' ? 'pkcs1' : 'sec1';
      resolve({ privateKey, keyPem: privateKey.export({ type, format: 'pem' }).toString() });
    };
    if (options.algorithm === 'RSA') generateKeyPair('rsa', { modulusLength: options.rsaKeySize }, done);
    else generateKeyPair('ec', { namedCurve: options.curve === 'P256' ? 'prime256v1' : 'secp384r1' }, done);
  });
}
