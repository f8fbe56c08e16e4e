import { stringify } from 'yaml';
import { KINDS, KIND_NAMES } from './kinds.js';
import type { KindDefinition, PrinterColumn } from './schema/kind-definition.js';

/** A rendered CustomResourceDefinition (apiextensions.k8s.io/v1) as a plain object. */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> };
  spec: {
    group: string;
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames?: string[]; categories: string[] };
    scope: 'Namespaced' | 'Cluster';
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      subresources: { status: Record<string, never> };
      additionalPrinterColumns?: PrinterColumn[];
      schema: { openAPIV3Schema: unknown };
    }[];
  };
}

/**
 * Copies a schema node dropping our `x-mesh-*` keys (the API server does not know them); the keys of `x-mesh-crd`
 * (CRD-only schema, such as Istio's `oneOf`) are merged into the node.
 */
export function toCrdSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toCrdSchema);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'x-mesh-crd') Object.assign(out, value);
    if (key.startsWith('x-mesh-')) continue;
    out[key] = key === 'properties'
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, toCrdSchema(v)]))
      : toCrdSchema(value);
  }
  return out;
}

/** The `openAPIV3Schema` of a kind's CRD: `spec` (required) and `status`, without our `x-mesh-*` keys. */
export function openApiV3Schema(definition: KindDefinition): unknown {
  return toCrdSchema({
    type: 'object',
    properties: { spec: definition.spec, status: definition.status },
    required: ['spec'],
  });
}

/** Renders the CRD of one kind: every served version with the same schema, one storage version. */
export function renderCrd(definition: KindDefinition): CustomResourceDefinition {
  const openAPIV3Schema = openApiV3Schema(definition);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${definition.plural}.${definition.group}`,
      labels: { app: 'mesh-pilot', chart: 'mesh', release: 'mesh' },
      annotations: { 'helm.sh/resource-policy': 'keep' },
    },
    spec: {
      group: definition.group,
      names: {
        categories: [...definition.categories],
        kind: definition.kind,
        listKind: `${definition.kind}List`,
        plural: definition.plural,
        ...(definition.shortNames.length > 0 ? { shortNames: [...definition.shortNames] } : {}),
        singular: definition.singular,
      },
      scope: definition.scope,
      versions: definition.versions.map((name) => ({
        ...(definition.printerColumns.length > 0 ? { additionalPrinterColumns: [...definition.printerColumns] } : {}),
        name,
        schema: { openAPIV3Schema },
        served: true,
        storage: name === definition.storageVersion,
        subresources: { status: {} },
      })),
    },
  };
}

/** Renders the CRDs of every mesh.io kind, in `KINDS` order. */
export function renderCrds(): CustomResourceDefinition[] {
  return KIND_NAMES.map((name) => renderCrd(KINDS[name]));
}

/** The header of the generated manifest file. */
export const CRD_MANIFEST_HEADER = '# DO NOT EDIT - generated from crds/ schemas by `npm run gen:crds`.\n';

/** Renders every CRD as one multi-document YAML text (the committed `crds/manifests/mesh-crds.yaml`). */
export function renderCrdsYaml(): string {
  const docs = renderCrds().map((crd) => stringify(crd, { lineWidth: 0, aliasDuplicateObjects: false }));
  return CRD_MANIFEST_HEADER + docs.map((d) => `---\n${d}`).join('');
}
