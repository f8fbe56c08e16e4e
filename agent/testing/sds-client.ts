/** A minimal SDS client (what the data-plane proxy does): one StreamSecrets stream over the agent's Unix socket. */
import * as grpc from '@grpc/grpc-js';
import { decode, encode } from '../xds-protos.js';
import { SDS_STREAM_METHOD, SECRET_TYPE_URL } from '../sds/sds-server.js';

/** A decoded SDS response: version, nonce and the Secrets by name. */
export interface SdsResponse {
  readonly versionInfo: string;
  readonly nonce: string;
  readonly secrets: Record<string, Record<string, unknown>>;
}

/** One open SDS stream; responses accumulate in `responses`. */
export interface SdsStream {
  readonly responses: SdsResponse[];
  request(names: readonly string[], ack?: { versionInfo: string; nonce: string }): void;
  close(): void;
}

const identity = (b: Buffer): Buffer => b;

/** Opens a stream to `unix:<socketPath>`. */
export function openSdsStream(socketPath: string, onResponse?: (r: SdsResponse) => void): SdsStream {
  const client = new grpc.Client(`unix:${socketPath}`, grpc.credentials.createInsecure());
  const call = client.makeBidiStreamRequest(SDS_STREAM_METHOD, identity, identity);
  const responses: SdsResponse[] = [];
  call.on('data', (b: Buffer) => {
    const r = decode('envoy.service.discovery.v3.DiscoveryResponse', b) as { versionInfo: string; nonce: string; resources?: { '@type': string; name: string }[] };
    const secrets: Record<string, Record<string, unknown>> = {};
    for (const res of r.resources ?? []) secrets[res.name] = res;
    const response = { versionInfo: r.versionInfo, nonce: r.nonce, secrets };
    responses.push(response);
    onResponse?.(response);
  });
  call.on('error', () => undefined);
  return {
    responses,
    request(names, ack) {
      const req = { node: { id: 'sidecar~10.0.0.1~test.ns~ns.svc.cluster.local' }, resourceNames: [...names], typeUrl: SECRET_TYPE_URL, ...(ack ? { versionInfo: ack.versionInfo, responseNonce: ack.nonce } : {}) };
      call.write(Buffer.from(encode('envoy.service.discovery.v3.DiscoveryRequest', req)));
    },
    close() {
      call.cancel();
      client.close();
    },
  };
}
