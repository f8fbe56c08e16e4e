/**
 * The objects of a rendered manifest, one per YAML document, each tagged with its component and given the
 * installer's labels ({@link installLabels}); the identity (`Kind namespace/name`) names it in errors.
 */
import { parseAllDocuments } from 'yaml';
import { installLabels, type InstallOwner } from './install-labels.js';

/** One object to apply. */
export interface ManifestObject {
  /** The component it belongs to (`Base`, `Pilot`, ...). */
  readonly component: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  /** '' for cluster-scoped objects (or ones the chart gave no namespace). */
  readonly namespace: string;
  /** The whole object, labels added. */
  readonly object: Record<string, unknown>;
}

/** One component's rendered manifest text. */
export interface ComponentManifest {
  readonly component: string;
  readonly text: string;
}

/** `Kind namespace/name` (or `Kind name`). */
export function objectRef(o: { kind: string; name: string; namespace: string }): string {
  return o.namespace ? `${o.kind} ${o.namespace}/${o.name}` : `${o.kind} ${o.name}`;
}

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Parses each component's documents (empty ones skipped) and adds the owner's labels.
 * @throws Error naming the component and document number when a document is not YAML or lacks apiVersion, kind or name
 */
export function manifestObjects(components: readonly ComponentManifest[], owner: InstallOwner): ManifestObject[] {
  const out: ManifestObject[] = [];
  for (const c of components) {
    const docs = parseAllDocuments(c.text, { version: '1.1' });
    const list = Array.isArray(docs) ? docs : [docs];
    list.forEach((doc, i) => {
      const where = `component ${c.component}, document ${i + 1}`;
      if (doc.errors.length > 0) throw new Error(`${where}: ${doc.errors[0]?.message ?? 'bad YAML'}`);
      const v = doc.toJS() as unknown;
      if (v === null || v === undefined) return;
      if (!isMap(v)) throw new Error(`${where}: not an object`);
      const meta = isMap(v['metadata']) ? v['metadata'] : {};
      const apiVersion = v['apiVersion'];
      const kind = v['kind'];
      const name = meta['name'];
      if (typeof apiVersion !== 'string' || typeof kind !== 'string' || typeof name !== 'string' || name === '') {
        throw new Error(`${where}: an object needs apiVersion, kind and metadata.name`);
      }
      const labels = isMap(meta['labels']) ? meta['labels'] : {};
      const object = { ...v, metadata: { ...meta, labels: { ...labels, ...installLabels(owner, c.component) } } };
      const namespace = typeof meta['namespace'] === 'string' ? meta['namespace'] : '';
      out.push({ component: c.component, apiVersion, kind, name, namespace, object });
    });
  }
  return out;
}
