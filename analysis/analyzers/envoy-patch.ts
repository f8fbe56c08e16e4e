/**
 * envoyfilter.EnvoyPatchAnalyzer: patch operations used where the proxy ignores them (ADD/REMOVE on
 * ROUTE_CONFIGURATION or HTTP_ROUTE: IST0153/IST0154; REPLACE outside HTTP_FILTER/NETWORK_FILTER: IST0152)
 * and relative operations without a priority (IST0151; IST0155 when another filter patches the same name
 * with a proxyVersion).
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { num, rec, recs, str } from '../object-access.js';
import type { AnalysisContext } from '../analysis-context.js';
import type { Resource } from '../resource.js';

const ROUTE_LEVEL = new Set(['ROUTE_CONFIGURATION', 'HTTP_ROUTE']);

/** See the file comment. */
export const envoyPatchAnalyzer: Analyzer = {
  name: 'envoyfilter.EnvoyPatchAnalyzer',
  description: 'Checks an envoyFilters',
  inputs: [K.EnvoyFilter],
  analyze(ctx) {
    const versioned: string[] = [];
    for (const ef of ctx.all(K.EnvoyFilter)) analyzeFilter(ctx, ef, versioned);
  },
};

function analyzeFilter(ctx: AnalysisContext, ef: Resource, versioned: string[]): void {
  const spec = rec(ef.obj['spec']);
  const priority = num(spec['priority']) ?? 0;
  const relative = (name: string): void => {
    if (priority !== 0) return;
    ctx.report(versioned.includes(name) ? MESSAGES.EnvoyFilterUsesRelativeOperationWithProxyVersion : MESSAGES.EnvoyFilterUsesRelativeOperation, ef);
  };
  for (const cp of recs(spec['configPatches'])) {
    const patch = cp['patch'];
    if (patch === undefined || patch === null) break;
    const p = rec(patch);
    const match = rec(cp['match']);
    const value = rec(p['value']);
    const name = str(value['name']) ?? (value['name'] !== undefined ? JSON.stringify(value['name']) : (str(rec(rec(rec(match['listener'])['filterChain'])['filter'])['name']) ?? ''));
    const applyTo = str(cp['applyTo']) ?? '';
    switch (str(p['operation'])) {
      case 'ADD':
        if (ROUTE_LEVEL.has(applyTo)) ctx.report(MESSAGES.EnvoyFilterUsesAddOperationIncorrectly, ef);
        break;
      case 'REMOVE':
        if (ROUTE_LEVEL.has(applyTo)) ctx.report(MESSAGES.EnvoyFilterUsesRemoveOperationIncorrectly, ef);
        else relative(name);
        break;
      case 'REPLACE':
        if (applyTo !== 'HTTP_FILTER' && applyTo !== 'NETWORK_FILTER') ctx.report(MESSAGES.EnvoyFilterUsesReplaceOperationIncorrectly, ef);
        else relative(name);
        break;
      case 'INSERT_BEFORE':
      case 'INSERT_AFTER':
        relative(name);
        break;
      default:
        break;
    }
    if (str(rec(match['proxy'])['proxyVersion'])) versioned.push(name);
  }
}
