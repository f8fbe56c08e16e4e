// Who may talk to the introspection facility. It listens on localhost by default and changes log levels on
// PUT, so a web page in a local browser must not reach it: DNS rebinding (a page whose name resolves to
// 127.0.0.1) is stopped by checking the Host header, cross-site requests by checking Origin and
// Sec-Fetch-Site on writes and by requiring a JSON body (which a form cannot send).
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

/** A refused request: the HTTP status and a message for the client. */
export interface GuardRefusal {
  readonly status: number;
  readonly message: string;
}

/** What the guard accepts. */
export interface RequestGuardOptions {
  /**
   * Host names (besides IP literals, `localhost` and `*.localhost`) the Host header may name: the listen
   * address when it is a name, the machine's host name, and any the caller adds.
   */
  readonly allowedHosts: readonly string[];
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

function normalizeHost(name: string): string {
  return name.toLowerCase().replace(/\.$/, '').replace(/^\[(.*)\]$/, '$1');
}

/** The host name of a Host header value (`localhost:9876` -> `localhost`, `[::1]:80` -> `::1`), or undefined if malformed. */
export function hostOfHeader(value: string): string | undefined {
  if (value === '' || /[/?#@\s\\]/.test(value)) return undefined;
  try {
    return normalizeHost(new URL(`http://${value}`).hostname);
  } catch {
    return undefined;
  }
}

/**
 * Checks one request; returns the refusal or undefined when it may proceed.
 * - Host (every request): an IP literal, `localhost`, `*.localhost` or an allowed name, else 403. A
 *   rebinding page always names its own DNS name, never an IP literal, so IP literals are safe to accept.
 * - Writes (any method but GET and HEAD): an `Origin`, when present, must be this server's own origin, and
 *   `Sec-Fetch-Site`, when present, `same-origin` or `none`, else 403; the body must be declared
 *   `application/json`, else 415.
 * Requests without Origin or Host (curl, meshctl, Go clients) pass these checks.
 */
export function checkRequest(req: IncomingMessage, options: RequestGuardOptions): GuardRefusal | undefined {
  const allowed = new Set(options.allowedHosts.map(normalizeHost));
  const hostHeader = req.headers.host;
  if (hostHeader !== undefined) {
    const host = hostOfHeader(hostHeader);
    if (host === undefined) return { status: 400, message: `malformed Host header ${JSON.stringify(hostHeader)}` };
    const ok = isIP(host) !== 0 || host === 'localhost' || host.endsWith('.localhost') || allowed.has(host);
    if (!ok) {
      return {
        status: 403,
        message: `Host ${JSON.stringify(hostHeader)} is not a name of this server (use localhost, an IP address${allowed.size ? ` or ${[...allowed].join(', ')}` : ''})`,
      };
    }
  }
  const method = req.method ?? 'GET';
  if (SAFE_METHODS.has(method)) return undefined;
  const origin = req.headers.origin;
  if (origin !== undefined && !sameOrigin(origin, hostHeader)) {
    return { status: 403, message: `cross-origin ${method} refused: Origin ${JSON.stringify(origin)} is not this server` };
  }
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return { status: 403, message: `cross-site ${method} refused (Sec-Fetch-Site: ${site})` };
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    return { status: 415, message: `${method} needs a JSON body with content-type: application/json (got ${JSON.stringify(req.headers['content-type'] ?? '')})` };
  }
  return undefined;
}

function sameOrigin(origin: string, hostHeader: string | undefined): boolean {
  if (hostHeader === undefined) return false;
  try {
    const o = new URL(origin);
    const own = new URL(`http://${hostHeader}`);
    return o.protocol === 'http:' && o.host === own.host;
  } catch {
    return false;
  }
}
