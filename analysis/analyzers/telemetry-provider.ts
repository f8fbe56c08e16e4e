/**
 * The telemetry provider analyzers. telemetry.ProviderAnalyzer: a Telemetry access-logging entry without
 * providers is ignored when the mesh config sets no default access-logging provider (IST0157).
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { rec, recs, str, strs } from '../object-access.js';

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

/**
 * telemetry.LightstepAnalyzer: a Telemetry tracing entry naming an extension provider of the mesh config
 * that is a Lightstep provider (`extensionProviders[].lightstep`), deprecated in favour of OpenTelemetry
 * (IST0002, once per such provider reference).
 */
export const lightstepAnalyzer: Analyzer = {
  name: 'telemetry.LightstepAnalyzer',
  description: 'Validates that lightstep provider is still used',
  inputs: [K.Telemetry],
  analyze(ctx) {
    const lightstep = new Set<string>();
    for (const p of recs(ctx.settings.meshConfig['extensionProviders'])) {
      const name = str(p['name']);
      if (name !== undefined && p['lightstep'] !== undefined) lightstep.add(name);
    }
    if (lightstep.size === 0) return;
    for (const t of ctx.all(K.Telemetry)) {
      for (const tracing of recs(rec(t.obj['spec'])['tracing'])) {
        for (const p of recs(tracing['providers'])) {
          const name = str(p['name']);
          if (name !== undefined && lightstep.has(name)) ctx.report(MESSAGES.Deprecated, t, `The Lightstep provider ${name} is deprecated, please migrate to OpenTelemetry provider.`);
        }
      }
    }
  },
};
