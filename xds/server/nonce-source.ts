/**
 * Nonces and versions of xDS responses, derived so that a replay of a recorded event log writes the same
 * bytes: a version names the snapshot a response was built from, a nonce is the process's seed and the
 * response's number on its stream.
 */
import { randomBytes } from 'node:crypto';
import type { PushRequest } from '../../core/index.js';

/**
 * Makes the nonce of a response: `sequence` counts the responses of one stream (1, 2, ...). It must give
 * distinct nonces on one stream; the default, {@link seededNonces}, also differs between processes.
 */
export type NonceSource = (connectionId: string, sequence: number) => string;

/** A random seed for {@link seededNonces} (12 hex digits). */
export function randomNonceSeed(): string {
  return randomBytes(6).toString('hex');
}

/**
 * Nonces `<seed>-<sequence>`. NOTE: the seed tells this process's nonces from another meshd's (a proxy
 * that reconnects elsewhere carries a nonce of the old one); a replay reuses the recorded seed.
 */
export function seededNonces(seed: string): NonceSource {
  return (_connectionId, sequence) => `${seed}-${sequence}`;
}

/**
 * The version_info of a response to `push`: the token of the snapshot it reads (`<token>`), so every
 * response built from one snapshot carries the same version and a replay reproduces it. A push with no
 * snapshot (a transport without a model) gets `fallback()`.
 */
export function snapshotVersion(push: PushRequest, fallback: () => string): string {
  return push.snapshot ? String(push.snapshot.token) : fallback();
}
