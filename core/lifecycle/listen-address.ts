/** Thrown when a listener address is bad or cannot be bound; the message starts with the flag. */
export class ListenError extends Error {
  override readonly name = 'ListenError';
  constructor(
    message: string,
    /** The system error code when binding failed (EADDRINUSE, EADDRNOTAVAIL, EACCES, ...). */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** A parsed `host:port`. An empty host means every address, as in Go. */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * Parses a Go-style listen address: `:15014`, `localhost:9876`, `0.0.0.0:8383`, `[::1]:80`.
 * Port 0 asks the system for a free port. Throws ListenError naming the flag for a bad form or port.
 */
export function parseListenAddress(text: string, flagName = 'address'): ListenAddress {
  const m = /^(?:\[([^\]]*)\]|([^:[\]]*)):([^:]*)$/.exec(text);
  const fail = (why: string): never => {
    throw new ListenError(`--${flagName} ${JSON.stringify(text)}: ${why} (use host:port, like :15014, localhost:9876 or [::1]:80)`);
  };
  if (!m) return fail('not a host:port address');
  const portText = m[3]!;
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) return fail(`invalid port "${portText}"`);
  return { host: m[1] ?? m[2] ?? '', port };
}

/** `host:port` with IPv6 hosts in brackets. */
export function formatListenAddress(address: ListenAddress): string {
  return `${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
}
