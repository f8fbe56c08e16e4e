import type { EnvoyFilterSpec } from '../../types.js';
import { childPath, type IssueCollector } from '../issue.js';
import { checkPort } from '../values.js';
import { checkSelectorLabels, checkTargetRefNamespace, report } from './common.js';

const NEEDS_VALUE = new Set(['MERGE', 'ADD', 'INSERT_BEFORE', 'INSERT_AFTER', 'INSERT_FIRST', 'REPLACE']);
const INSERT_OR_REPLACE_TARGETS = new Set(['HTTP_FILTER', 'NETWORK_FILTER', 'HTTP_ROUTE', 'LISTENER_FILTER']);
const LISTENER_SCOPED = new Set(['LISTENER', 'FILTER_CHAIN', 'NETWORK_FILTER', 'HTTP_FILTER', 'LISTENER_FILTER']);
const ROUTE_SCOPED = new Set(['ROUTE_CONFIGURATION', 'VIRTUAL_HOST', 'HTTP_ROUTE']);

/** Semantic checks of an EnvoyFilter spec, after Istio's validation. */
export function validateEnvoyFilter(spec: EnvoyFilterSpec, issues: IssueCollector, path = 'spec'): void {
  if (spec.workloadSelector !== undefined && spec.targetRefs !== undefined) {
    issues.error(path, 'only one of targetRefs or workloadSelector can be set');
  }
  checkSelectorLabels(spec.workloadSelector?.labels, childPath(childPath(path, 'workloadSelector'), 'labels'), issues);
  spec.targetRefs?.forEach((r, i) => checkTargetRefNamespace(r, childPath(childPath(path, 'targetRefs'), i), issues));
  spec.configPatches?.forEach((p, i) => {
    const at = childPath(childPath(path, 'configPatches'), i);
    // NOTE: a value of the wrong type is the schema's error (found by fuzzing: it was named "[object Object]").
    const applyTo = typeof p.applyTo === 'string' ? p.applyTo : 'INVALID';
    if (applyTo === 'INVALID') issues.error(childPath(at, 'applyTo'), 'Envoy filter: missing applyTo');
    const operation = typeof p.patch?.operation === 'string' ? p.patch.operation : 'INVALID';
    if (p.patch === undefined) {
      issues.error(childPath(at, 'patch'), 'Envoy filter: missing patch');
      return;
    }
    if (operation === 'INVALID') issues.error(childPath(childPath(at, 'patch'), 'operation'), 'Envoy filter: missing patch operation');
    if (NEEDS_VALUE.has(operation) && p.patch.value === undefined) {
      issues.error(childPath(childPath(at, 'patch'), 'value'), `Envoy filter: operation ${operation} needs a value`);
    }
    if ((operation.startsWith('INSERT_') || operation === 'REPLACE') && !INSERT_OR_REPLACE_TARGETS.has(applyTo) && applyTo !== 'INVALID') {
      issues.error(childPath(childPath(at, 'patch'), 'operation'), `Envoy filter: ${operation} is not valid for applyTo ${applyTo}`);
    }
    if (p.patch.filterClass !== undefined && p.patch.filterClass !== 'UNSPECIFIED' && !(applyTo === 'HTTP_FILTER' && operation === 'ADD')) {
      issues.error(childPath(childPath(at, 'patch'), 'filterClass'), 'Envoy filter: filterClass only applies to ADD of an HTTP_FILTER');
    }
    const match = p.match;
    if (match) {
      // NOTE: Istio's CEL rule: a waypoint match goes with context WAYPOINT and only with it.
      const waypoint = match.waypoint !== undefined;
      if (waypoint !== (match.context === 'WAYPOINT')) issues.error(childPath(at, 'match'), 'only support waypointMatch when context is WAYPOINT');
      if (match.waypoint?.portNumber !== undefined) report(issues, childPath(childPath(childPath(at, 'match'), 'waypoint'), 'portNumber'), checkPort(match.waypoint.portNumber));
      const set = [match.listener, match.routeConfiguration, match.cluster].filter((m) => m !== undefined).length;
      if (set > 1) issues.error(childPath(at, 'match'), 'Envoy filter: match may set only one of listener, routeConfiguration or cluster');
      if (match.listener && !LISTENER_SCOPED.has(applyTo)) {
        issues.error(childPath(childPath(at, 'match'), 'listener'), `Envoy filter: applyTo ${applyTo} cannot use a listener match`);
      }
      if (match.routeConfiguration && !ROUTE_SCOPED.has(applyTo)) {
        issues.error(childPath(childPath(at, 'match'), 'routeConfiguration'), `Envoy filter: applyTo ${applyTo} cannot use a routeConfiguration match`);
      }
      if (match.cluster && applyTo !== 'CLUSTER') {
        issues.error(childPath(childPath(at, 'match'), 'cluster'), `Envoy filter: applyTo ${applyTo} cannot use a cluster match`);
      }
    }
  });
}
