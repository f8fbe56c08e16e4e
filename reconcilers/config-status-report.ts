import type { ConfigKey } from '../core/index.js';
/**
 * What the config source concluded about one mesh.io object it processed: the input of the status writer
 * (`ConfigStatusReconciler`). `key.kind` is the bare kind (`VirtualService`), `key.namespace` is ''
 * for cluster-scoped kinds, `generation` is the `metadata.generation` that was processed. A rejected
 * object carries a message saying what is wrong and where (it becomes the condition's message).
 */
export interface ConfigStatusReport {
  readonly key: ConfigKey;
  readonly generation: number;
  readonly outcome: { readonly accepted: true } | { readonly accepted: false; readonly message: string };
}
