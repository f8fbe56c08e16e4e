/** A schema node of a rendered CRD, as a plain object. */
export type SchemaObject = Record<string, unknown>;

/**
 * The schema node at a field path in the notation of istio/api's CRDs as the rule tables write it
 * (`.spec.http[].timeout`: `[]` an item, `{}` a map value), or undefined when the schema has no such node.
 */
export function schemaNodeAt(root: SchemaObject, field: string): SchemaObject | undefined {
  let node: SchemaObject | undefined = root;
  for (const [, name, step] of field.matchAll(/\.([A-Za-z0-9_]+)|(\[\]|\{\})/g)) {
    if (node === undefined) return undefined;
    if (name !== undefined) node = (node['properties'] as Record<string, SchemaObject> | undefined)?.[name];
    else node = (step === '[]' ? node['items'] : node['additionalProperties']) as SchemaObject | undefined;
  }
  return node;
}
