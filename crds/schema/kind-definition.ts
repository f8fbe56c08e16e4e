import type { ObjectNode, SchemaNode } from './builders.js';

/** An additional printer column of a CRD version (as `kubectl get` shows it). */
export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  readonly jsonPath: string;
  readonly description?: string;
}

/** Everything needed to render a kind's CRD, validate its objects and type them. */
export interface KindDefinition<Spec extends ObjectNode = ObjectNode, Status extends SchemaNode = SchemaNode> {
  readonly kind: string;
  /** API group, e.g. `networking.mesh.io`. */
  readonly group: string;
  /** Served versions, newest first, as Istio serves them. */
  readonly versions: readonly string[];
  /** The one version stored in etcd. */
  readonly storageVersion: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly scope: 'Namespaced' | 'Cluster';
  /** The spec schema (the single source for CRD, types and validation). */
  readonly spec: Spec;
  readonly status: Status;
  readonly printerColumns: readonly PrinterColumn[];
}

/** The `Age` column every Istio CRD has. */
export const AGE_COLUMN: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created. ' +
    'It is not guaranteed to be set in happens-before order across separate operations. Clients may not set ' +
    'this value. It is represented in RFC3339 form and is in UTC. Populated by the system. Read-only. ' +
    'Null for lists.',
};

/** Identity function that keeps the literal types of a kind definition. */
export function defineKind<const Spec extends ObjectNode, const Status extends SchemaNode>(
  definition: KindDefinition<Spec, Status>,
): KindDefinition<Spec, Status> {
  if (!definition.versions.includes(definition.storageVersion)) {
    throw new Error(`kind ${definition.kind}: storage version ${definition.storageVersion} is not served`);
  }
  return definition;
}
