/**
 * The quick start's demo backends: a plain gRPC Echo server per version, each on its own loopback address,
 * answering with its version so the client can tell where a call went.
 */
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { closeGrpcServer } from '../../core/index.js';

/** The repo-relative echo.proto, found from the compiled file (dist/hack/quickstart/) or the source. */
const ECHO_PROTO = fileURLToPath(new URL('../../../hack/quickstart/echo.proto', import.meta.url));

interface EchoReply {
  message: string;
  version: string;
  address: string;
}

/** The Echo service definition and a client constructor, loaded once. */
export function loadEchoService(): { service: grpc.ServiceDefinition; Client: grpc.ServiceClientConstructor } {
  const definition = protoLoader.loadSync(ECHO_PROTO, { keepCase: true });
  const pkg = grpc.loadPackageDefinition(definition) as unknown as {
    mesh: { quickstart: { Echo: grpc.ServiceClientConstructor } };
  };
  const Client = pkg.mesh.quickstart.Echo;
  return { service: Client.service, Client };
}

/** A running backend; `close()` stops it. */
export interface EchoBackend {
  readonly address: string;
  readonly version: string;
  close(): Promise<void>;
}

/** Starts one Echo backend on `host:port` that reports `version`. */
export async function startEchoBackend(host: string, port: number, version: string): Promise<EchoBackend> {
  const { service } = loadEchoService();
  const server = new grpc.Server();
  const address = `${host}:${port}`;
  server.addService(service, {
    Echo(call: grpc.ServerUnaryCall<{ message: string }, EchoReply>, callback: grpc.sendUnaryData<EchoReply>) {
      callback(null, { message: call.request.message, version, address });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve()));
  });
  return {
    address,
    version,
    close: () => closeGrpcServer(server, 2000),
  };
}
