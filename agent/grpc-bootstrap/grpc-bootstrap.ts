/**
 * Proxyless gRPC (Istio's grpc-agent mode, `MESH_META_GENERATOR=grpc` with DISABLE_DATAPLANE): the agent
 * writes the gRPC xDS bootstrap JSON (`xds_servers` at the agent's XDS socket, the node, a `file_watcher`
 * certificate provider named `default`, the server listener name template meshd serves) and keeps the
 * workload certificate, key and root in files the gRPC library watches, rewritten on every rotation.
 */
import { join, resolve } from 'node:path';
import { nodeId, nodeMetadata, type BootstrapInputs } from '../bootstrap/bootstrap-data.js';
import type { WorkloadSecret } from '../sds/workload-secret.js';
import { writeFileWhole } from '../write-file-whole.js';

/** The inbound listener names meshd serves proxyless servers (`xds.mesh.io/grpc/lds/inbound/<host:port>`). */
export const GRPC_SERVER_LISTENER_TEMPLATE = 'xds.mesh.io/grpc/lds/inbound/%s';
/** File names inside the certificate directory. */
export const CERT_FILES = { chain: 'cert-chain.pem', key: 'key.pem', root: 'root-cert.pem' } as const;

/** The gRPC xDS bootstrap document. */
export function grpcBootstrap(inputs: BootstrapInputs, certDir: string): Record<string, unknown> {
  const dir = resolve(certDir);
  return {
    xds_servers: [{ server_uri: `unix://${resolve(inputs.xdsSocketPath)}`, channel_creds: [{ type: 'insecure' }], server_features: ['xds_v3'] }],
    node: { id: nodeId(inputs), cluster: inputs.proxy.serviceCluster, metadata: { ...nodeMetadata(inputs), GENERATOR: 'grpc' }, locality: {} },
    certificate_providers: {
      default: {
        plugin_name: 'file_watcher',
        config: { certificate_file: join(dir, CERT_FILES.chain), private_key_file: join(dir, CERT_FILES.key), ca_certificate_file: join(dir, CERT_FILES.root), refresh_interval: '900s' },
      },
    },
    server_listener_resource_name_template: GRPC_SERVER_LISTENER_TEMPLATE,
  };
}

/** Writes the bootstrap to `path` (atomically); returns the document. */
export function writeGrpcBootstrap(path: string, inputs: BootstrapInputs, certDir: string): Record<string, unknown> {
  const doc = grpcBootstrap(inputs, certDir);
  writeFileWhole(path, `${JSON.stringify(doc, null, 2)}\n`);
  return doc;
}

/** Writes the secret's chain, key and root into `dir`, each file replaced atomically (the watcher never reads half a file). */
export function writeCertificateFiles(dir: string, s: WorkloadSecret): void {
  writeFileWhole(join(dir, CERT_FILES.chain), s.certChainPem, 0o644);
  writeFileWhole(join(dir, CERT_FILES.key), s.keyPem, 0o600);
  writeFileWhole(join(dir, CERT_FILES.root), s.rootCertPem, 0o644);
}
