/**
 * The limits every reader of mesh.io YAML applies (meshd's `--configDir` source, the CRD source,
 * `meshctl validate`, the validation webhook): the cost of reading one file or object is bounded by
 * them, whatever it holds. The defaults are far above any real config (a Kubernetes object is at most
 * ~1.5 MiB in etcd, a ConfigMap-mounted file at most 1 MiB), so only hostile or broken input meets them.
 */

/** Limits of one YAML file (or one already-parsed object, for the key count). */
export interface YamlLimits {
  /** Largest file, in bytes; larger files are rejected unread. Default 16 MiB. */
  readonly maxFileBytes: number;
  /** Most documents in one file; a file with more is rejected as a whole. Default 10,000. */
  readonly maxDocuments: number;
  /** Most mapping keys in one document (all levels together); more rejects the document. Default 100,000. */
  readonly maxKeys: number;
  /**
   * The `yaml` package's `maxAliasCount`: how many nodes alias expansion may produce, relative to the
   * document (it stops "billion laughs"). 0 refuses every alias. Default 100 (the package's default).
   */
  readonly maxAliasCount: number;
}

/** See {@link YamlLimits} for each default. */
export const DEFAULT_YAML_LIMITS: YamlLimits = Object.freeze({
  maxFileBytes: 16 * 1024 * 1024,
  maxDocuments: 10_000,
  maxKeys: 100_000,
  maxAliasCount: 100,
});

/**
 * For an object that arrived already parsed (from the API server as JSON): a one-line reason when it
 * holds more than `limits.maxKeys` mapping keys, else undefined. Linear in the object's size, and
 * stops counting at the limit. Never throws (cycles cannot occur in parsed JSON).
 */
export function objectLimitError(obj: unknown, limits: Pick<YamlLimits, 'maxKeys'> = DEFAULT_YAML_LIMITS): string | undefined {
  let keys = 0;
  const stack: unknown[] = [obj];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
      continue;
    }
    for (const k in v) {
      if (++keys > limits.maxKeys) return `more than ${limits.maxKeys} mapping keys (limit maxKeys)`;
      stack.push((v as Record<string, unknown>)[k]);
    }
  }
  return undefined;
}
