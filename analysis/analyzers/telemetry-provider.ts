/**
 * telemetry.ProviderAnalyzer: a Telemetry access-logging entry without providers is ignored when the mesh
 * config sets no default access-logging provider (IST0157).
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { rec, recs, strs } from '../object-access.js';

/** See the file comment. */
export const telemetryProviderAnalyzer: Analyzer = {
  name: 'telemetry.ProviderAnalyzer',
  description: 'Validates that providers in telemetry resource is valid',
  inputs: [K.Telemetry],
  analyze(ctx) {
    const defaults = strs(rec(ctx.settings.meshConfig['defaultProviders'])['accessLogging']);
    if (defaults.length > 0) return;
    for (const t of ctx.all(K.Telemetry)) {
      const logging = recs(rec(t.obj['spec'])['accessLogging']);
      if (logging.some((l) => recs(l['providers']).length === 0)) ctx.report(MESSAGES.InvalidTelemetryProvider, t, t.name, t.namespace);
    }
  },
};
