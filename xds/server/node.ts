/**
 * Parses and checks the node a proxy sends in its first request.
 *
 * ID: `<type>~<ip>~<pod>.<namespace>~<namespace>.svc.<domain>` with type `sidecar` or `router`.
 * Metadata keys as Istio's (`CLUSTER_ID`, `LABELS`, `NAMESPACE`, `INSTANCE_IPS`, `SERVICE_ACCOUNT`,
 * `GENERATOR`, ...); Istio's `ISTIO_*` keys are also offered under their `MESH_*` names.
 */
import { isIP } from 'node:net';
import { NODE_TYPES, type NodeType, type ProxyNode } from './contracts.js';
import type { NodeMessage } from './wire.js';

/** The node is missing or malformed; the stream is closed with INVALID_ARGUMENT and this message. */
export class NodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NodeError';
  }
}

type StructValue = { nullValue?: unknown; numberValue?: number; stringValue?: string; boolValue?: boolean; structValue?: { fields?: Record<string, unknown> }; listValue?: { values?: unknown[] } };

const has = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** google.protobuf.Value (protobufjs message) to plain JS. */
export function structValueToJs(v: unknown): unknown {
  const x = (v ?? {}) as StructValue;
  if (has(x, 'stringValue')) return x.stringValue;
  if (has(x, 'numberValue')) return x.numberValue;
  if (has(x, 'boolValue')) return x.boolValue;
  if (has(x, 'structValue')) return structToJs(x.structValue?.fields);
  if (has(x, 'listValue')) return (x.listValue?.values ?? []).map(structValueToJs);
  return null;
}

/** google.protobuf.Struct fields (protobufjs message) to a plain object. */
export function structToJs(fields: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields ?? {})) out[k] = structValueToJs(v);
  return out;
}

function stringMap(md: Record<string, unknown>, key: string): void {
  const v = md[key];
  if (v === undefined) return;
  if (v === null || typeof v !== 'object' || Array.isArray(v) || Object.values(v).some((x) => typeof x !== 'string')) {
    throw new NodeError(`node metadata ${key} must be a map of strings`);
  }
}

function optionalString(md: Record<string, unknown>, key: string): void {
  const v = md[key];
  if (v !== undefined && typeof v !== 'string') throw new NodeError(`node metadata ${key} must be a string (got ${JSON.stringify(v)})`);
}

/** Size bounds of a node's fields (see stream-limits.ts for the reasons behind the defaults). */
export interface NodeLimits {
  readonly maxNodeIdBytes: number;
  readonly maxNodeFieldBytes: number;
  readonly maxNodeMetadataBytes: number;
}

/**
 * Bounds no real proxy reaches: a 1 KiB id, 1 KiB names, 512 KiB of metadata.
 *
 * NOTE: a real id is `type~ip~pod.namespace~namespace.svc.domain`, each part a Kubernetes name (pod
 * <= 253, namespace <= 63, DNS domain <= 253) or an IP, so under 700 bytes: 1 KiB. Metadata carries
 * labels and annotations (Kubernetes caps a pod's annotations at 256 KiB in total) and a few dozen short
 * keys: 512 KiB. Cluster, user agent and locality are names: 1 KiB each. A node past these is refused with
 * INVALID_ARGUMENT before anything of it is logged.
 */
export const DEFAULT_NODE_LIMITS: NodeLimits = Object.freeze({ maxNodeIdBytes: 1024, maxNodeFieldBytes: 1024, maxNodeMetadataBytes: 512 * 1024 });

function checkSize(field: string, value: string | undefined, max: number): void {
  if (value === undefined || value.length * 3 <= max) return; // NOTE: UTF-8 needs at most 3 bytes per UTF-16 unit
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > max) throw new NodeError(`${field} is ${bytes} bytes, over the limit of ${max} bytes`);
}

/**
 * Parses a node. Throws NodeError naming what is wrong: no node, an absurdly large field (id, cluster,
 * user agent, locality, metadata over `limits`), empty or malformed ID, unknown proxy type, bad IP,
 * malformed metadata (LABELS not a string map, INSTANCE_IPS not IPs, ...).
 */
export function parseNode(node: NodeMessage | null | undefined, limits: NodeLimits = DEFAULT_NODE_LIMITS): ProxyNode {
  if (!node) throw new NodeError('the first request on the stream has no node');
  const id = node.id ?? '';
  checkSize('node id', id, limits.maxNodeIdBytes);
  checkSize('node cluster', node.cluster, limits.maxNodeFieldBytes);
  checkSize('node user_agent_name', node.userAgentName, limits.maxNodeFieldBytes);
  checkSize('node locality region', node.locality?.region, limits.maxNodeFieldBytes);
  checkSize('node locality zone', node.locality?.zone, limits.maxNodeFieldBytes);
  checkSize('node locality sub_zone', node.locality?.subZone, limits.maxNodeFieldBytes);
  if (id === '') throw new NodeError('node id is empty (want <type>~<ip>~<pod>.<namespace>~<namespace>.svc.<domain>)');
  const parts = id.split('~');
  if (parts.length !== 4) {
    throw new NodeError(`node id "${id}" has ${parts.length} parts separated by "~", want 4: <type>~<ip>~<pod>.<namespace>~<namespace>.svc.<domain>`);
  }
  const [type, ip, podDotNs, domain] = parts as [string, string, string, string];
  if (!(NODE_TYPES as readonly string[]).includes(type)) {
    throw new NodeError(`node id "${id}": proxy type "${type}" is not one of ${NODE_TYPES.join(', ')}`);
  }
  if (isIP(ip) === 0) throw new NodeError(`node id "${id}": "${ip}" is not an IP address`);
  const dot = podDotNs.indexOf('.');
  if (dot <= 0 || dot === podDotNs.length - 1) throw new NodeError(`node id "${id}": "${podDotNs}" is not <pod>.<namespace>`);
  if (domain === '') throw new NodeError(`node id "${id}": the DNS domain part is empty`);

  const metadata = structToJs(node.metadata?.fields);
  checkSize('node metadata (as JSON)', JSON.stringify(metadata), limits.maxNodeMetadataBytes);
  for (const [k, v] of Object.entries(metadata)) {
    if (k.startsWith('ISTIO_')) {
      const meshKey = `MESH_${k.slice('ISTIO_'.length)}`;
      if (!has(metadata, meshKey)) metadata[meshKey] = v;
    }
  }
  stringMap(metadata, 'LABELS');
  stringMap(metadata, 'ANNOTATIONS');
  for (const k of ['CLUSTER_ID', 'NAMESPACE', 'INSTANCE_IPS', 'SERVICE_ACCOUNT', 'GENERATOR', 'MESH_VERSION', 'NETWORK', 'WORKLOAD_NAME']) optionalString(metadata, k);

  const ipAddresses = [ip];
  const instanceIps = metadata['INSTANCE_IPS'] as string | undefined;
  if (instanceIps) {
    for (const raw of instanceIps.split(',')) {
      const a = raw.trim();
      if (isIP(a) === 0) throw new NodeError(`node metadata INSTANCE_IPS: "${a}" is not an IP address`);
      if (!ipAddresses.includes(a)) ipAddresses.push(a);
    }
  }
  const generator = metadata['GENERATOR'] as string | undefined;
  const proxyless = generator === 'grpc';
  if (proxyless && type !== 'sidecar') throw new NodeError(`node id "${id}": a proxyless gRPC node (GENERATOR grpc) must be of type sidecar`);

  const loc = node.locality;
  const locality = loc && (loc.region || loc.zone || loc.subZone)
    ? { region: loc.region ?? '', zone: loc.zone ?? '', subZone: loc.subZone ?? '' }
    : undefined;
  return Object.freeze({
    id,
    type: type as NodeType,
    ipAddresses: Object.freeze(ipAddresses),
    podName: podDotNs.slice(0, dot),
    namespace: (metadata['NAMESPACE'] as string | undefined) || podDotNs.slice(dot + 1),
    dnsDomain: domain,
    metadata: Object.freeze(metadata),
    ...(locality ? { locality } : {}),
    proxyless,
  });
}
