/**
 * A connected proxy: the node the xDS transport parsed from a stream (`ProxyNode`), and the proxy as the
 * model sees it (`Proxy`: identity, labels and locality).
 */
import type { Locality } from './service.js';

/** The proxy kinds the node ID names (`<type>~<ip>~<pod>.<ns>~<ns>.svc.<domain>`). */
export const NODE_TYPES = ['sidecar', 'router'] as const;
export type NodeType = (typeof NODE_TYPES)[number];

/** A parsed, validated node: the identity fields of the node ID plus its metadata. */
export interface ProxyNode {
  readonly id: string;
  readonly type: NodeType;
  readonly ipAddresses: readonly string[];
  readonly podName: string;
  readonly namespace: string;
  readonly dnsDomain: string;
  /** Node metadata with `MESH_META_` / Istio keys as sent (`GENERATOR`, `LABELS`, `CLUSTER_ID`, ...). */
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly locality?: { readonly region?: string; readonly zone?: string; readonly subZone?: string };
  /** True for proxyless gRPC clients (metadata `GENERATOR: grpc`). */
  readonly proxyless: boolean;
}

/** A proxy. Immutable. */
export interface Proxy {
  readonly id: string;
  readonly type: string;
  readonly ipAddresses: readonly string[];
  readonly podName: string;
  readonly namespace: string;
  readonly dnsDomain: string;
  /** Workload labels (metadata `LABELS`). */
  readonly labels: Readonly<Record<string, string>>;
  readonly locality: Locality;
  readonly proxyless: boolean;
  /** Metadata `CLUSTER_ID`, empty when not sent. */
  readonly clusterId: string;
  /** Metadata `SERVICE_ACCOUNT`, empty when not sent. */
  readonly serviceAccount: string;
  readonly metadata: Readonly<Record<string, unknown>>;
}

function stringRecord(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

/** Builds the model's Proxy from a parsed node. */
export function proxyFromNode(node: ProxyNode): Proxy {
  const md = node.metadata;
  return Object.freeze({
    id: node.id,
    type: node.type,
    ipAddresses: Object.freeze([...node.ipAddresses]),
    podName: node.podName,
    namespace: node.namespace,
    dnsDomain: node.dnsDomain,
    labels: Object.freeze(stringRecord(md['LABELS'])),
    locality: Object.freeze({
      region: node.locality?.region ?? '',
      zone: node.locality?.zone ?? '',
      subZone: node.locality?.subZone ?? '',
    }),
    proxyless: node.proxyless,
    clusterId: typeof md['CLUSTER_ID'] === 'string' ? md['CLUSTER_ID'] : '',
    serviceAccount: typeof md['SERVICE_ACCOUNT'] === 'string' ? md['SERVICE_ACCOUNT'] : '',
    metadata: md,
  });
}
