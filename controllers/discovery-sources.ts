/**
 * Every source of the model's inputs for meshd, merged into one Observable of input batches: the
 * `--configDir` files, the mesh config and the mesh networks files. `cli/` subscribes it into
 * `MeshModel.pushes`.
 */
import { map } from 'rxjs';
import type { YamlLimits } from '../crds/index.js';
import { fileConfigSource, type RejectedConfig } from './file-config-source.js';
import type { RejectedConfigs } from './rejected-configs.js';
import { meshConfigSource, meshNetworksSource } from './mesh-config-source.js';
import { selectRegistries } from './registries.js';
import { mergeSources, type SourceSet } from './source-set.js';

/** Options, from flags and env read once by the CLI. */
export interface DiscoverySourcesOptions {
  /** `--configDir`; empty means the CRD client, which is not built yet. */
  readonly configDir: string;
  /** `--meshConfig` */
  readonly meshConfigPath: string;
  /** `--networksConfig` */
  readonly networksPath: string;
  /** `--namespace` (falls back to POD_NAMESPACE): namespace of documents that name none. */
  readonly namespace: string;
  /** `--registries` */
  readonly registries: readonly string[];
  readonly fileDebounceMs?: number;
  readonly rescanIntervalMs?: number;
  /** Limits of each config file; default crds/ DEFAULT_YAML_LIMITS. */
  readonly limits?: YamlLimits;
  /** Once per distinct bad version of a config document or file. */
  readonly onRejected?: (r: RejectedConfig) => void;
  /** When an object whose version was rejected is valid again. */
  readonly onRecovered?: (r: RejectedConfig) => void;
  /** Kept up to date with the current rejections, for `/debug/rejectedz`. */
  readonly rejections?: RejectedConfigs;
  readonly onError?: (err: Error) => void;
}

/** Thrown when a required source is not built yet. */
export class SourceNotImplementedError extends Error {
  override readonly name = 'SourceNotImplementedError';
}

/**
 * Builds the merged sources. Checks `--registries` first (throws for Orchestrator, not built yet) and
 * requires `--configDir` (the orchestrator CRD config source is not built yet).
 */
export function discoverySources(opts: DiscoverySourcesOptions): SourceSet {
  selectRegistries(opts.registries);
  if (!opts.configDir) throw new SourceNotImplementedError('not implemented yet: orchestrator CRD config source (use --configDir)');
  const watchOpts = { ...(opts.fileDebounceMs !== undefined ? { debounceMs: opts.fileDebounceMs } : {}), ...(opts.onError ? { onError: opts.onError } : {}) };
  return mergeSources({
    'mesh-config': meshConfigSource(opts.meshConfigPath, watchOpts).pipe(map((i) => [i])),
    'mesh-networks': meshNetworksSource(opts.networksPath, watchOpts).pipe(map((i) => [i])),
    'config-dir': fileConfigSource({
      dir: opts.configDir,
      defaultNamespace: opts.namespace,
      ...(opts.fileDebounceMs !== undefined ? { fileDebounceMs: opts.fileDebounceMs } : {}),
      ...(opts.rescanIntervalMs !== undefined ? { rescanIntervalMs: opts.rescanIntervalMs } : {}),
      ...(opts.limits ? { limits: opts.limits } : {}),
      ...(opts.onRejected ? { onRejected: opts.onRejected } : {}),
      ...(opts.onRecovered ? { onRecovered: opts.onRecovered } : {}),
      ...(opts.rejections ? { rejections: opts.rejections } : {}),
      ...(opts.onError ? { onScanError: opts.onError } : {}),
    }),
  });
}
