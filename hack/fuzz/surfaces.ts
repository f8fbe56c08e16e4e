/**
 * The fuzz surfaces `npm run fuzz` knows, by name. Each lives beside the code it fuzzes (a `testing/`
 * module), where its seeded CI share (`*.fuzz.test.ts`) uses it too.
 */
import type fc from 'fast-check';
import { startCaFuzzSurface } from '../../ca/testing/ca-fuzz-surface.js';
import { configFuzzSurface } from '../../crds/testing/config-fuzz-surface.js';
import { startWebhookFuzzSurface } from '../../webhooks/testing/webhook-fuzz-surface.js';
import { startAdsFuzzSurface } from '../../xds/testing/ads-fuzz-surface.js';

/**
 * One fuzzed surface. `check` resolves with `accepted` (or `patched`, ...) or the refusal's reason (a
 * bounded label), and rejects with `property: ...` when an input breaks a property (a crash, an unclear
 * refusal, an INTERNAL status) or `hang: ...` when its own bound passed; `healthy` checks a good client
 * is still served.
 */
export interface FuzzSurface {
  readonly name: string;
  readonly arbitrary: fc.Arbitrary<unknown>;
  check(input: unknown): Promise<string>;
  /** Totals of what the surface did besides checking (e.g. inputs re-checked alone), reported with the run. */
  counters?(): Record<string, number>;
  healthy(): Promise<void>;
  close(): Promise<void>;
}

/** Surface names, in the order `--surface all` runs them. */
export const SURFACE_NAMES = ['config', 'xds', 'ca', 'webhooks'] as const;
export type SurfaceName = (typeof SURFACE_NAMES)[number];

/** Starts a surface; `boundMs` is the surface's own per-input bound, where it has one. */
export async function startSurface(name: SurfaceName, boundMs: number): Promise<FuzzSurface> {
  switch (name) {
    case 'config':
      return configFuzzSurface() as unknown as FuzzSurface;
    case 'xds':
      return (await startAdsFuzzSurface({ boundMs })) as unknown as FuzzSurface;
    case 'ca':
      return (await startCaFuzzSurface()) as unknown as FuzzSurface;
    case 'webhooks':
      return (await startWebhookFuzzSurface({ boundMs })) as unknown as FuzzSurface;
  }
}
