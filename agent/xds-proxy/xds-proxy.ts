/**
 * The agent's xDS proxy: the data-plane proxy's ADS stream (on the `XDS` Unix socket the bootstrap's
 * `xds-grpc` cluster points at) is carried to meshd over one upstream ADS stream (TLS with XDS_ROOT_CA or
 * the mesh root, the workload certificate as client certificate when there is one, and the service-account
 * token as `authorization: Bearer` with XDS_AUTH). Messages pass as bytes both ways. When the upstream
 * stream fails the downstream one is closed with meshd's status (UNAVAILABLE when meshd could not be
 * reached), so the proxy reconnects with its own backoff
 * and a fresh upstream stream is made. Metrics: `xds_proxy_requests`, `xds_proxy_responses`,
 * `meshd_connection_failures` (no response ever came), `meshd_connection_terminations` (an established
 * stream broke), `dataplane_connection_terminations` (the proxy's own stream broke).
 *
 * With `onNameTable` (DNS capture), the agent subscribes the upstream stream to meshd's name table (NDS) after
 * the proxy's first request, keeps those responses for itself (ACKing them upstream) and hands each table to
 * the DNS proxy; the proxy never sees them. With `convertExtensionConfig`, extension config (ECDS) responses
 * pass through it first (remote Wasm made local, agent/wasm/ecds-convert.ts): the converted response goes to
 * the proxy, or a NACK with the reason goes to meshd; responses reach the proxy in the order meshd sent them.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { Metrics } from '../../core/index.js';
import { decode, encode, TYPE_URL } from '../xds-protos.js';
import type { NameInfo } from '../dns/name-table.js';

/** The ADS method path. */
export const ADS_STREAM_METHOD = '/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources';
const identity = (b: Buffer): Buffer => b;
const SERVICE: grpc.ServiceDefinition = {
  StreamAggregatedResources: { path: ADS_STREAM_METHOD, requestStream: true, responseStream: true, requestSerialize: identity, requestDeserialize: identity, responseSerialize: identity, responseDeserialize: identity },
};

/** Where and how to reach meshd. */
export interface XdsUpstream {
  /** `host:port` (discoveryAddress). */
  readonly address: string;
  /**
   * The channel credentials, or a function giving the current ones (TLS with the workload certificate of
   * the moment): asked for each new upstream stream; a different object makes a new channel, and the old
   * one closes when its last stream ends.
   */
  readonly credentials: grpc.ChannelCredentials | (() => grpc.ChannelCredentials);
  /** TLS name to verify when it differs from the address host. */
  readonly serverName?: string;
  /** The bearer token per stream (XDS_AUTH), read when the stream opens. */
  readonly token?: () => string;
}

/** Options of the xDS proxy. */
export interface XdsProxyOptions {
  readonly socketPath: string;
  readonly upstream: XdsUpstream;
  readonly metrics: Metrics;
  readonly logger: Logger;
  /** Rewrites ECDS responses before the proxy sees them (remote Wasm fetched and made local). */
  readonly convertExtensionConfig?: (response: Buffer) => Promise<{ readonly bytes: Buffer } | { readonly nack: string; readonly nonce: string }>;
  /** Called with each name table meshd sends (NDS); without it no name table is asked for. */
  readonly onNameTable?: (table: Readonly<Record<string, NameInfo>>) => void;
}

const DISCOVERY_REQUEST = 'envoy.service.discovery.v3.DiscoveryRequest';
const DISCOVERY_RESPONSE = 'envoy.service.discovery.v3.DiscoveryResponse';
const NAME_TABLE = 'mesh.networking.nds.v1.NameTable';

/**
 * The `type_url` (field 4) of an encoded DiscoveryResponse, found by skipping over the other top-level
 * fields (no resource is decoded); undefined when the bytes do not parse.
 */
export function responseTypeUrl(b: Buffer): string | undefined {
  let i = 0;
  const varint = (): number => {
    let v = 0;
    let shift = 0;
    for (;;) {
      if (i >= b.length || shift > 49) throw new RangeError('truncated varint');
      const byte = b[i++]!;
      v += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return v;
      shift += 7;
    }
  };
  try {
    while (i < b.length) {
      const tag = varint();
      const field = Math.floor(tag / 8);
      switch (tag & 7) {
        case 0: varint(); break;
        case 1: i += 8; break;
        case 5: i += 4; break;
        case 2: {
          const len = varint();
          if (field === 4) return b.toString('utf8', i, i + len);
          i += len;
          break;
        }
        default: return undefined;
      }
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** A running xDS proxy. */
export class XdsProxy {
  readonly #server = new grpc.Server();
  readonly #o: XdsProxyOptions;
  readonly #calls = new Set<{ cancel(): void }>();
  /** The channel new streams use, with the credentials it was made with. */
  #client: { readonly client: grpc.Client; readonly credentials: grpc.ChannelCredentials } | undefined;
  /** Streams per channel, so a replaced channel closes after its last one. */
  readonly #streamsOf = new Map<grpc.Client, number>();
  /** Downstream streams accepted so far. */
  streams = 0;

  private constructor(o: XdsProxyOptions) {
    this.#o = o;
    this.#server.addService(SERVICE, { StreamAggregatedResources: (call: grpc.ServerDuplexStream<Buffer, Buffer>) => this.#stream(call) });
  }

  /** Listens on the Unix socket (a stale file is replaced). */
  static async start(o: XdsProxyOptions): Promise<XdsProxy> {
    mkdirSync(dirname(o.socketPath), { recursive: true });
    rmSync(o.socketPath, { force: true });
    const p = new XdsProxy(o);
    await new Promise<void>((res, rej) => p.#server.bindAsync(`unix:${o.socketPath}`, grpc.ServerCredentials.createInsecure(), (e) => (e ? rej(e) : res())));
    return p;
  }

  /** The channel for a new stream: the current one, or a new one when the credentials changed. */
  #channel(): grpc.Client {
    const u = this.#o.upstream;
    const credentials = typeof u.credentials === 'function' ? u.credentials() : u.credentials;
    const current = this.#client;
    if (current?.credentials === credentials) return current.client;
    const client = new grpc.Client(u.address, credentials, u.serverName ? { 'grpc.ssl_target_name_override': u.serverName } : {});
    this.#client = { client, credentials };
    this.#streamsOf.set(client, 0);
    if (current && (this.#streamsOf.get(current.client) ?? 0) === 0) {
      this.#streamsOf.delete(current.client);
      current.client.close();
    }
    return client;
  }

  /** One stream of `client` ended: a replaced channel without streams is closed. */
  #release(client: grpc.Client): void {
    const n = (this.#streamsOf.get(client) ?? 1) - 1;
    if (n > 0 || this.#client?.client === client) {
      this.#streamsOf.set(client, Math.max(n, 0));
      return;
    }
    this.#streamsOf.delete(client);
    client.close();
  }

  #stream(down: grpc.ServerDuplexStream<Buffer, Buffer>): void {
    this.streams++;
    const m = this.#o.metrics;
    const metadata = new grpc.Metadata();
    try {
      const token = this.#o.upstream.token?.();
      if (token) metadata.set('authorization', `Bearer ${token}`);
    } catch (e) {
      this.#o.logger.error({ err: (e as Error).message }, 'xDS token cannot be read');
      // NOTE: grpc-js ends a server stream with a status when the call emits 'error' with a code.
      down.emit('error', { code: grpc.status.UNAUTHENTICATED, details: `xDS token cannot be read: ${(e as Error).message}` });
      return;
    }
    const channel = this.#channel();
    const up = channel.makeBidiStreamRequest(ADS_STREAM_METHOD, identity, identity, metadata);
    this.#calls.add(up);
    this.#streamsOf.set(channel, (this.#streamsOf.get(channel) ?? 0) + 1);
    let responded = false;
    let closed = false;
    let ndsAsked = false;
    const close = (): void => {
      if (closed) return;
      closed = true;
      this.#calls.delete(up);
      this.#release(channel);
    };
    down.on('data', (b: Buffer) => {
      m.counter('xds_proxy_requests').inc();
      up.write(b);
      // NOTE: after the proxy's first request, which carries the node meshd needs on a new stream.
      if (this.#o.onNameTable && !ndsAsked) {
        ndsAsked = true;
        up.write(Buffer.from(encode(DISCOVERY_REQUEST, { typeUrl: TYPE_URL.nameTable })));
      }
    });
    down.on('end', () => up.end());
    down.on('cancelled', () => {
      if (!closed) m.counter('dataplane_connection_terminations').inc();
      close();
      up.cancel();
    });
    down.on('error', () => {
      if (!closed) m.counter('dataplane_connection_terminations').inc();
      close();
      up.cancel();
    });
    // NOTE: a response waiting on a conversion holds back the ones after it, so the proxy sees meshd's order.
    let downChain: Promise<void> = Promise.resolve();
    let converting = 0;
    const toProxy = (b: Buffer): void => {
      if (converting === 0) down.write(b);
      else downChain = downChain.then(() => void (closed || down.write(b)));
    };
    up.on('data', (b: Buffer) => {
      responded = true;
      m.counter('xds_proxy_responses').inc();
      const typeUrl = this.#o.onNameTable || this.#o.convertExtensionConfig ? responseTypeUrl(b) : undefined;
      if (this.#o.onNameTable && typeUrl === TYPE_URL.nameTable) {
        up.write(this.#nameTableAck(b));
        return;
      }
      const convert = this.#o.convertExtensionConfig;
      if (convert && typeUrl === TYPE_URL.extensionConfig) {
        converting++;
        const converted = convert(b);
        downChain = downChain.then(async () => {
          const r = await converted;
          converting--;
          if (closed) return;
          if ('bytes' in r) down.write(r.bytes);
          else {
            this.#o.logger.warn({ reason: r.nack }, 'extension config from meshd refused');
            up.write(Buffer.from(encode(DISCOVERY_REQUEST, { typeUrl: TYPE_URL.extensionConfig, responseNonce: r.nonce, errorDetail: { code: 3, message: r.nack } })));
          }
        });
        return;
      }
      toProxy(b);
    });
    up.on('error', (e: grpc.ServiceError) => {
      if (closed) return;
      close();
      if (e.code === grpc.status.CANCELLED) return;
      m.counter(responded ? 'meshd_connection_terminations' : 'meshd_connection_failures').inc();
      this.#o.logger.warn({ code: e.code, err: e.details || e.message, established: responded }, 'upstream xDS stream to meshd failed; closing the proxy stream');
      // NOTE: meshd's own status goes down as is (a refusal stays a refusal); transport failures are UNAVAILABLE.
      down.emit('error', { code: e.code ?? grpc.status.UNAVAILABLE, details: `upstream xDS stream to meshd failed: ${e.details || e.message}` });
    });
    up.on('end', () => {
      if (closed) return;
      close();
      down.end();
    });
  }

  /** Hands a name-table response to `onNameTable`; returns its ACK (a NACK naming the problem when it does not decode). */
  #nameTableAck(b: Buffer): Buffer {
    let ack = { typeUrl: TYPE_URL.nameTable, versionInfo: '', responseNonce: '' };
    try {
      // NOTE: decode expands Any with `@type`: the NameTable's fields sit beside it.
      const r = decode(DISCOVERY_RESPONSE, b) as { versionInfo?: string; nonce?: string; resources?: { '@type'?: string; table?: Record<string, NameInfo> }[] };
      ack = { ...ack, versionInfo: r.versionInfo ?? '', responseNonce: r.nonce ?? '' };
      const first = r.resources?.[0];
      if (first && first['@type'] !== TYPE_URL.nameTable) throw new Error(`resource of type ${String(first['@type'])}, want ${NAME_TABLE}`);
      this.#o.onNameTable!(first?.table ?? {});
      return Buffer.from(encode(DISCOVERY_REQUEST, ack));
    } catch (e) {
      this.#o.logger.warn({ err: (e as Error).message }, 'name table from meshd refused');
      return Buffer.from(encode(DISCOVERY_REQUEST, { ...ack, versionInfo: '', errorDetail: { code: 3, message: `name table: ${(e as Error).message}` } }));
    }
  }

  /** Stops serving, cancels upstream streams, removes the socket. */
  async close(): Promise<void> {
    for (const c of this.#calls) c.cancel();
    this.#server.forceShutdown();
    for (const client of this.#streamsOf.keys()) client.close();
    this.#streamsOf.clear();
    this.#client = undefined;
    rmSync(this.#o.socketPath, { force: true });
    await Promise.resolve();
  }
}
