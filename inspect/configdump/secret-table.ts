/**
 * proxy-config secret: istioctl's columns `RESOURCE NAME  TYPE  STATUS  VALID CERT  SERIAL NUMBER  NOT AFTER
 * NOT BEFORE`, plus the certificate's trust domain (from its SPIFFE URI). Key material is never shown: the
 * table reads certificates only, and {@link redactSecrets} drops private keys from `-o json|yaml`.
 */
import { X509Certificate } from 'node:crypto';
import { pick, type Json } from './config-dump.js';
import { formatTable } from './text-table.js';

/** One secret's certificate facts. */
export interface SecretRow {
  readonly name: string;
  readonly type: 'Cert Chain' | 'CA' | 'Unknown';
  readonly status: string;
  readonly valid: boolean;
  readonly serial: string;
  readonly notAfter: string;
  readonly notBefore: string;
  readonly trustDomain: string;
}

function decodeFirstCert(inline: unknown): X509Certificate | undefined {
  if (typeof inline !== 'string') return undefined;
  const bytes = Buffer.from(inline, 'base64');
  const text = bytes.toString('utf8');
  const pem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(text)?.[0];
  try {
    return new X509Certificate(pem ?? bytes);
  } catch {
    return undefined;
  }
}

/** The facts of each secret of a dump's `SecretsConfigDump`, at wall time `now`. */
export function secretRows(secrets: readonly Json[], now: Date): SecretRow[] {
  return secrets.map((s) => {
    const secret = (s['secret'] ?? {}) as Json;
    const chain = pick(secret, 'tls_certificate', 'certificate_chain', 'inline_bytes');
    const ca = pick(secret, 'validation_context', 'trusted_ca', 'inline_bytes');
    const cert = decodeFirstCert(chain ?? ca);
    const type = chain !== undefined ? 'Cert Chain' : ca !== undefined ? 'CA' : 'Unknown';
    const status = s['last_updated'] !== undefined || s['version_info'] !== undefined ? 'ACTIVE' : 'WARMING';
    if (!cert) return { name: String(s['name'] ?? ''), type, status, valid: false, serial: '', notAfter: '', notBefore: '', trustDomain: '' };
    const notBefore = new Date(cert.validFrom);
    const notAfter = new Date(cert.validTo);
    const spiffe = /URI:spiffe:\/\/([^/,\s]+)/.exec(cert.subjectAltName ?? '');
    return {
      name: String(s['name'] ?? secret['name'] ?? ''),
      type,
      status,
      valid: now >= notBefore && now <= notAfter,
      serial: cert.serialNumber.toLowerCase().replace(/^0+(?=.)/, ''),
      notAfter: notAfter.toISOString().replace(/\.000Z$/, 'Z'),
      notBefore: notBefore.toISOString().replace(/\.000Z$/, 'Z'),
      trustDomain: spiffe?.[1] ?? '',
    };
  });
}

/** The short table. */
export function secretTable(rows: readonly SecretRow[]): string {
  return formatTable(
    ['RESOURCE NAME', 'TYPE', 'STATUS', 'VALID CERT', 'SERIAL NUMBER', 'NOT AFTER', 'NOT BEFORE', 'TRUST DOMAIN'],
    rows.map((r) => [r.name, r.type, r.status, String(r.valid), r.serial, r.notAfter, r.notBefore, r.trustDomain]),
  );
}

/** A copy of the secrets without private keys (anything under a `private_key` field becomes `[redacted]`). */
export function redactSecrets(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(redactSecrets);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v as Json).map(([k, x]) => [k, k === 'private_key' || k === 'private_key_provider' ? '[redacted]' : redactSecrets(x)]));
}
