/**
 * The protocol of an orchestrator Service port, as Istio decides it: `appProtocol` first, then the port
 * name prefix (`grpc-`, `http-`, `tcp-`, ...; the bare prefix counts too), then UDP from the transport
 * protocol. Anything else is UNSUPPORTED (protocol sniffing).
 */
import type { Protocol } from '../../core/index.js';

/** Name prefixes and appProtocol values, longest first where one prefixes another. */
const BY_NAME: readonly (readonly [string, Protocol])[] = [
  ['grpc-web', 'GRPC-WEB'],
  ['grpc', 'GRPC'],
  ['http2', 'HTTP2'],
  ['https', 'HTTPS'],
  ['http', 'HTTP'],
  ['mongo', 'MONGO'],
  ['mysql', 'MYSQL'],
  ['redis', 'REDIS'],
  ['tcp', 'TCP'],
  ['tls', 'TLS'],
  ['udp', 'UDP'],
];

/** appProtocol values beyond the plain protocol names (the orchestrator's standard ones). */
const APP_PROTOCOL_ALIASES: Readonly<Record<string, Protocol>> = {
  h2c: 'HTTP2',
  'kubernetes.io/h2c': 'HTTP2',
  'kubernetes.io/ws': 'HTTP',
  'kubernetes.io/wss': 'HTTPS',
};

/** The fields of a Service port the protocol depends on. */
export interface PortProtocolInput {
  readonly name?: string | undefined;
  readonly appProtocol?: string | undefined;
  /** Transport protocol: `TCP` (default), `UDP` or `SCTP`. */
  readonly protocol?: string | undefined;
}

function fromName(text: string): Protocol | undefined {
  const lower = text.toLowerCase();
  for (const [prefix, protocol] of BY_NAME) {
    if (lower === prefix || lower.startsWith(`${prefix}-`)) return protocol;
  }
  return undefined;
}

/** See the file comment. */
export function portProtocol(port: PortProtocolInput): Protocol {
  if (port.protocol === 'UDP') return 'UDP';
  if (port.protocol === 'SCTP') return 'UNSUPPORTED';
  const app = port.appProtocol?.toLowerCase();
  if (app) {
    const alias = APP_PROTOCOL_ALIASES[app];
    if (alias) return alias;
    const named = BY_NAME.find(([name]) => name === app);
    if (named) return named[1];
  }
  return fromName(port.name ?? '') ?? 'UNSUPPORTED';
}
