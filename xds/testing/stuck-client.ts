/**
 * A proxy that never reads: a raw HTTP/2 client that opens an ADS stream, sends requests and never
 * consumes a byte of the responses, with a small receive window, so that HTTP/2 flow control stalls the
 * server's writes after the first 64 KiB (no client-side message buffer absorbs responses first, as a
 * paused grpc-js call would).
 */
import * as http2 from 'node:http2';
import { encode } from '../protos/index.js';
import { nodeObject, type TestNode } from './ads-stream.js';

const REQUEST = 'envoy.service.discovery.v3.DiscoveryRequest';

/** A stuck ADS client on its own HTTP/2 connection. */
export class StuckClient {
  readonly #session: http2.ClientHttp2Session;
  readonly #stream: http2.ClientHttp2Stream;
  #nodeSent = false;
  /** True once the stream has closed (by either side). */
  closed = false;

  /** Opens the stream to `address` (`host:port`) as `node`. */
  constructor(address: string, readonly node: TestNode) {
    this.#session = http2.connect(`http://${address}`, { settings: { initialWindowSize: 65_535 } });
    this.#session.on('error', () => {
      // NOTE: the server may reset the connection when it cuts the stream off; that is the point.
    });
    this.#stream = this.#session.request({
      ':method': 'POST',
      ':path': '/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources',
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    this.#stream.on('error', () => {
      // see the session's error handler
    });
    this.#stream.on('close', () => {
      this.closed = true;
    });
    // NOTE: no 'data' listener and paused: the stream never consumes, so its window is never replenished.
    this.#stream.pause();
  }

  /** Sends one DiscoveryRequest (the node rides on the first). */
  request(req: { typeUrl: string; resourceNames?: readonly string[]; responseNonce?: string }): void {
    const msg: Record<string, unknown> = { ...req, resourceNames: req.resourceNames ?? [] };
    if (!this.#nodeSent) {
      msg['node'] = nodeObject(this.node);
      this.#nodeSent = true;
    }
    const body = encode(REQUEST, msg);
    const frame = Buffer.alloc(5 + body.length);
    frame.writeUInt32BE(body.length, 1);
    frame.set(body, 5);
    this.#stream.write(frame);
  }

  /** Request bytes the server has not taken yet (HTTP/2 flow control holds them here when it stops reading). */
  get unsentBytes(): number {
    return this.#stream.bufferSize;
  }

  /** Tears the connection down (as a proxy that goes away). */
  close(): void {
    this.#stream.destroy();
    this.#session.destroy();
  }
}
