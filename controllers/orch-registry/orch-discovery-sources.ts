/**
 * The sources of meshd when `--configDir` is not set and `--registries` includes Orchestrator: the mesh
 * config and networks files, mesh.io config from the CRDs, and the Orchestrator registry (which also reads
 * the WorkloadEntries of the CRD source), merged into one Observable of input batches for the model.
 */
import { existsSync, readFileSync } from 'node:fs';
import { filter, map, mergeMap, share, Subject } from 'rxjs';
import { parse } from 'yaml';
import type { ConfigEvent } from '../../core/index.js';
import { crdConfigSource, isMissingCrd, type CrdStatusReport, type RejectedCrd } from '../crd-config-source.js';
import type { RejectedConfigs } from '../rejected-configs.js';
import { meshConfigSource, meshNetworksSource } from '../mesh-config-source.js';
import { mergeSources, type SourceSet } from '../source-set.js';
import { InformerFactory, type InformerError, type OrchTransport } from '../orch/index.js';
import { parseLabelSelectors, type LabelSelector } from './label-selector.js';
import { orchRegistry, type OrchRegistryMetrics } from './orch-registry.js';
import type { OrchTranslationOptions } from './service-entry-from-service.js';

/** Options, from flags, env and the mesh config, read once by the CLI. */
export interface OrchDiscoverySourcesOptions {
  readonly client: OrchTransport;
  /** MESH_WATCH_NAMESPACE */
  readonly watchNamespace?: string | undefined;
  readonly meshConfigPath: string;
  readonly networksPath: string;
  readonly translation: OrchTranslationOptions;
  /** PILOT_ENABLE_SERVICEENTRY_SELECT_PODS */
  readonly selectPods: boolean;
  readonly discoverySelectors: readonly LabelSelector[];
  readonly registryMetrics?: OrchRegistryMetrics;
  readonly onCfgEvent?: (kind: string, event: 'add' | 'update' | 'delete') => void;
  readonly onRejected?: (r: RejectedCrd) => void;
  /** An object whose last version was rejected is valid again. */
  readonly onRecovered?: (r: RejectedCrd) => void;
  /** Kept up to date with the current rejections, for `/debug/rejectedz`. */
  readonly rejections?: RejectedConfigs;
  /** Per object generation, accepted or rejected (see `crdConfigSource`); only when status writing is on. */
  readonly onStatus?: (r: CrdStatusReport) => void;
  /** Failed lists and watches (the informers retry on their own). */
  readonly onInformerError?: (e: InformerError) => void;
  /** Mesh config / networks file errors. */
  readonly onFileError?: (err: Error) => void;
  /** Informer backoff; default the informer's (800 ms doubling to 30 s). */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number; readonly jitter?: number };
}

/**
 * The mesh config's `discoverySelectors` from the mesh config file (none when the file does not exist);
 * read at start by the CLI and again by {@link orchDiscoverySources} whenever the file changes. @throws LabelSelectorError / Error naming the file and the bad item
 */
export function readDiscoverySelectors(path: string): LabelSelector[] {
  if (!existsSync(path)) return [];
  let doc: unknown;
  try {
    doc = parse(readFileSync(path, 'utf8')) as unknown;
  } catch (e) {
    throw new Error(`${path}: ${(e as Error).message}`);
  }
  const raw = typeof doc === 'object' && doc !== null ? (doc as { discoverySelectors?: unknown }).discoverySelectors : undefined;
  return parseLabelSelectors(raw, `${path}: discoverySelectors`);
}

/** See the file comment. Unsubscribing stops every watch. */
export function orchDiscoverySources(opts: OrchDiscoverySourcesOptions): SourceSet {
  const missing$ = new Subject<string>();
  const informers = new InformerFactory(opts.client, {
    watchNamespace: opts.watchNamespace,
    ...(opts.backoff ? { backoff: opts.backoff } : {}),
    onError: (e) => {
      if (isMissingCrd(e)) missing$.next(e.resource);
      opts.onInformerError?.(e);
    },
  });
  const configs$ = crdConfigSource({
    informers,
    ...(opts.onRejected ? { onRejected: opts.onRejected } : {}),
    ...(opts.onRecovered ? { onRecovered: opts.onRecovered } : {}),
    ...(opts.rejections ? { rejections: opts.rejections } : {}),
    ...(opts.onStatus ? { onStatus: opts.onStatus } : {}), ...(opts.onCfgEvent ? { onEvent: opts.onCfgEvent } : {}),
  }, missing$).pipe(share());
  const workloadEntries$ = configs$.pipe(
    mergeMap((batch) => batch),
    filter((i): i is { kind: 'config'; event: ConfigEvent } => i.kind === 'config' && i.event.key.kind === 'WorkloadEntry'),
    map((i) => i.event),
  );
  const fileOpts = opts.onFileError ? { onError: opts.onFileError } : {};
  const meshConfig$ = meshConfigSource(opts.meshConfigPath, fileOpts).pipe(share());
  // NOTE: the mesh config source emits when the file's text changes; its discoverySelectors are read again
  // then (a bad value is reported and the last good selectors stay; an unchanged value is ignored).
  const discoverySelectors$ = meshConfig$.pipe(
    mergeMap(() => {
      try {
        return [readDiscoverySelectors(opts.meshConfigPath)];
      } catch (e) {
        opts.onFileError?.(e as Error);
        return [];
      }
    }),
  );
  return mergeSources({
    'mesh-config': meshConfig$.pipe(map((i) => [i])),
    'mesh-networks': meshNetworksSource(opts.networksPath, fileOpts).pipe(map((i) => [i])),
    'crd-config': configs$,
    'orch-registry': orchRegistry({
      ...opts.translation,
      informers,
      selectPods: opts.selectPods,
      discoverySelectors: opts.discoverySelectors,
      discoverySelectors$,
      workloadEntries$,
      ...(opts.registryMetrics ? { metrics: opts.registryMetrics } : {}),
    }),
  });
}
