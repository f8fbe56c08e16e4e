// The bench's callers written in Node: each holds its own HTTP/2 connection, token and CSR and makes one
// CreateCertificate call at a time. Two kinds: `grpc-js` (the CertificateClient pilot-agent uses) and
// `http2` (gRPC framing written straight onto node:http2: ~0.2 ms of CPU per call instead of ~0.35 ms).
// The default callers are grpc-go (go-load-driver.ts), cheaper still.
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { CERTIFICATE_SERVICE_NAME, CertificateClient } from '../../../ca/index.js';
import { decodeCertificateResponse, encodeCertificateRequest, grpcFrame } from './certificate-messages.js';

/** One caller: `call()` resolves when a certificate chain came back, rejects with the reason otherwise. */
export interface Caller {
  call(): Promise<void>;
  close(): void;
}

export const NODE_CALLER_KINDS = ['http2', 'grpc-js'] as const;
export type NodeCallerKind = (typeof NODE_CALLER_KINDS)[number];

/** Where the server is and what one caller sends. */
export interface CallerTarget {
  readonly address: string;
  readonly serverName: string;
  readonly rootCertPem: string;
  readonly token: string;
  readonly csrPem: string;
  /** The gRPC service when it is not meshd's (same messages, e.g. istiod's IstioCertificateService). */
  readonly service?: string;
}

export function createCaller(kind: NodeCallerKind, target: CallerTarget): Caller {
  if (kind === 'grpc-js' && target.service !== undefined) {
    throw new Error(`not implemented yet: --client grpc-js against ${target.service} (pilot-agent's client calls meshd's service only; use --client go or http2)`);
  }
  return kind === 'grpc-js' ? new GrpcJsCaller(target) : new Http2Caller(target);
}

class GrpcJsCaller implements Caller {
  readonly #client: CertificateClient;

  constructor(readonly target: CallerTarget) {
    this.#client = new CertificateClient({
      address: target.address, rootCertPem: target.rootCertPem, serverName: target.serverName, token: () => target.token,
      channelOptions: { 'grpc.use_local_subchannel_pool': 1, 'grpc.enable_channelz': 0 },
    });
  }

  async call(): Promise<void> {
    await this.#client.createCertificate(this.target.csrPem);
  }

  close(): void {
    this.#client.close();
  }
}

class Http2Caller implements Caller {
  readonly #session: ClientHttp2Session;
  readonly #body: Buffer;
  readonly #headers: Record<string, string>;

  constructor(target: CallerTarget) {
    this.#session = connect(`https://${target.address}`, { ca: target.rootCertPem, servername: target.serverName });
    this.#session.on('error', () => {}); // each call reports its own failure
    this.#body = grpcFrame(encodeCertificateRequest(target.csrPem));
    this.#headers = {
      [constants.HTTP2_HEADER_METHOD]: 'POST',
      [constants.HTTP2_HEADER_PATH]: `/${target.service ?? CERTIFICATE_SERVICE_NAME}/CreateCertificate`,
      [constants.HTTP2_HEADER_AUTHORITY]: target.serverName,
      'content-type': 'application/grpc',
      te: 'trailers',
      'grpc-timeout': '10S',
      authorization: `Bearer ${target.token}`,
    };
  }

  call(): Promise<void> {
    return new Promise((resolve, reject) => {
      const stream = this.#session.request(this.#headers);
      const chunks: Buffer[] = [];
      let status: string | undefined;
      let message = '';
      const readStatus = (headers: Record<string, unknown>): void => {
        if (headers['grpc-status'] !== undefined) {
          status = String(headers['grpc-status']);
          message = decodeURIComponent(String(headers['grpc-message'] ?? ''));
        }
      };
      stream.on('response', readStatus); // a trailers-only answer carries the status in its headers
      stream.on('trailers', readStatus);
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', reject);
      stream.on('end', () => {
        if (status !== '0') {
          reject(new Error(`CreateCertificate: grpc-status ${status ?? '(none)'} ${message}`));
          return;
        }
        const body = Buffer.concat(chunks);
        const chain = decodeCertificateResponse(body.subarray(5, 5 + body.readUInt32BE(1)));
        if (chain.length < 2) reject(new Error(`CreateCertificate: expected leaf..root, got ${chain.length} certificate(s)`));
        else resolve();
      });
      stream.end(this.#body);
    });
  }

  close(): void {
    this.#session.close();
  }
}
