/**
 * Redaction of credential-like values in debug output. Proxies put whatever their environment holds into
 * node metadata (`MESH_META_*` variables become keys), and `/debug/adsz` showed a test token to anyone who
 * could reach :8080. Istio shows only the NodeMetadata fields it knows (arbitrary keys stay in `Raw`, never
 * serialized); meshd shows every key, so it redacts by key name and by value shape instead.
 */

/** What a redacted value is replaced with. */
export const REDACTED = '[redacted]';

/** Substrings of a key (lower case, separators removed) that mark its value as a credential. */
const CREDENTIAL_KEY_PARTS = [
  'token', 'secret', 'password', 'passwd', 'passphrase', 'credential', 'authorization', 'apikey', 'privatekey',
  'accesskey', 'signingkey', 'cookie', 'bearer', 'jwt', 'sessionid',
] as const;

/** Whole words of a key (split at `_`, `-`, `.`, `/` and camelCase) that mark a credential. */
const CREDENTIAL_KEY_WORDS = new Set(['key', 'keys', 'auth', 'pwd', 'pass', 'pw', 'sig', 'signature']);

/** Values that are credentials whatever their key: JWTs, Basic/Bearer headers, PEM private keys. */
const CREDENTIAL_VALUE = /\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*|\b(?:bearer|basic)\s+[\w+/=.~-]{8,}|-----BEGIN [A-Z ]*PRIVATE KEY-----/i;

/** Nesting below which values are not shown (node metadata from a proxy can be a deep Struct). */
const MAX_DEPTH = 16;

/** True when a metadata key names a credential (`TEST_TOKEN`, `dbPassword`, `AWS_SECRET_ACCESS_KEY`, `api-key`). */
export function isCredentialKey(key: string): boolean {
  const compact = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (CREDENTIAL_KEY_PARTS.some((part) => compact.includes(part))) return true;
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/);
  return words.some((w) => CREDENTIAL_KEY_WORDS.has(w));
}

/** True when a string looks like a credential whatever its key (a JWT, an Authorization value, a private key). */
export function isCredentialValue(value: string): boolean {
  return CREDENTIAL_VALUE.test(value);
}

/**
 * A copy of `value` with credentials replaced by `REDACTED`: the values of credential-like keys (at any
 * depth) and strings that look like credentials. Nesting deeper than 16 levels is replaced by `[truncated]`.
 * Empty values stay as they are, so "not set" remains visible.
 */
export function redactCredentials(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return isCredentialValue(value) ? REDACTED : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[truncated]';
  if (Array.isArray(value)) return value.map((v) => redactCredentials(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const empty = v === undefined || v === null || v === '';
    out[k] = isCredentialKey(k) && !empty ? REDACTED : redactCredentials(v, depth + 1);
  }
  return out;
}
