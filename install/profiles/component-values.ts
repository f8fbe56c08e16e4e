/**
 * Maps an effective MeshOperator spec to Helm releases: one per component (`base`, `pilot` on the meshd
 * chart, each entry of `ingressGateways` / `egressGateways` on the gateway chart), each with the chart
 * values it means. `spec.values` (with `unvalidatedValues`), `meshConfig`, `hub`, `tag`, `revision` and
 * `namespace` feed base and meshd; a component's `k8s` settings and `values.gateways.<name>` map to the
 * chart's own keys. Unmapped settings fail with "not implemented yet" naming the field.
 */
import type { GoMap, GoValue } from '../../templates/index.js';
import { mergeValues } from '../coalesce-values.js';
import { MeshOperatorError, notBuiltYet } from './mesh-operator-error.js';

/** The MeshOperator components this installer renders, in install order (Istio's names). */
export const COMPONENT_NAMES = ['base', 'pilot', 'ingressGateways', 'egressGateways'] as const;
/** One of {@link COMPONENT_NAMES}. */
export type ComponentName = (typeof COMPONENT_NAMES)[number];
/** The chart each component renders with (a folder of the charts directory). */
export const COMPONENT_CHART: Record<ComponentName, string> = { base: 'base', pilot: 'meshd', ingressGateways: 'gateway', egressGateways: 'gateway' };
/** Istio's directory names of `manifest generate -o`: Base, Base/Pilot, Base/Pilot/<Gateways>. */
export const COMPONENT_DIR: Record<ComponentName, string> = { base: 'Base', pilot: 'Base/Pilot', ingressGateways: 'Base/Pilot/IngressGateways', egressGateways: 'Base/Pilot/EgressGateways' };
/** Istio's component display names (`Base`, `Pilot`, `IngressGateways`, `EgressGateways`). */
export const COMPONENT_TITLE: Record<ComponentName, string> = { base: 'Base', pilot: 'Pilot', ingressGateways: 'IngressGateways', egressGateways: 'EgressGateways' };

/** One Helm release of a MeshOperator. */
export interface ComponentRelease {
  readonly component: ComponentName;
  /** The chart folder name (`base`, `meshd`, `gateway`). */
  readonly chart: string;
  /** The release name (`base`, `meshd`, or the gateway's name). */
  readonly release: string;
  readonly namespace: string;
  /** Whether the spec enables it (disabled releases are listed so that their values can be checked too). */
  readonly enabled: boolean;
  /** The user values for the chart (coalesced over its values.yaml at render time). */
  readonly values: GoMap;
}

const isMap = (v: unknown): v is GoMap => v !== null && typeof v === 'object' && !Array.isArray(v);

function mapAt(spec: GoMap, key: string, at: string): GoMap {
  const v = spec[key];
  if (v === undefined || v === null) return {};
  if (!isMap(v)) throw new MeshOperatorError(`${at}.${key} is not a map`);
  return v;
}

/** `[{name, value}]` (Kubernetes env) -> `{name: value}` (the charts' env maps). */
function envMap(env: unknown, at: string): GoMap {
  if (!Array.isArray(env)) throw new MeshOperatorError(`${at} is not a list of {name, value}`);
  const out: GoMap = {};
  env.forEach((e, i) => {
    if (!isMap(e) || typeof e['name'] !== 'string') throw new MeshOperatorError(`${at}[${i}] needs a string name`);
    if (e['valueFrom'] !== undefined) notBuiltYet(`${at}[${i}].valueFrom`);
    out[e['name']] = e['value'] === undefined ? '' : String(e['value']);
  });
  return out;
}

/** The `k8s` keys each chart understands, and where they go. */
function k8sValues(k8s: GoMap, at: string, target: 'meshd' | 'gateway'): GoMap {
  const out: GoMap = {};
  for (const [key, v] of Object.entries(k8s)) {
    const path = `${at}.${key}`;
    switch (key) {
      case 'env':
        out['env'] = envMap(v, path);
        break;
      case 'resources':
      case 'nodeSelector':
      case 'tolerations':
      case 'affinity':
      case 'podAnnotations':
      case 'replicaCount':
        out[key] = v;
        break;
      case 'hpaSpec': {
        if (!isMap(v)) throw new MeshOperatorError(`${path} is not a map`);
        for (const k of Object.keys(v)) if (k !== 'minReplicas' && k !== 'maxReplicas') notBuiltYet(`${path}.${k}`);
        if (target === 'meshd') {
          if (v['minReplicas'] !== undefined) out['autoscaleMin'] = v['minReplicas'];
          if (v['maxReplicas'] !== undefined) out['autoscaleMax'] = v['maxReplicas'];
        } else out['autoscaling'] = Object.fromEntries(Object.entries(v).filter(([k]) => k === 'minReplicas' || k === 'maxReplicas'));
        break;
      }
      case 'service':
        if (target !== 'gateway') notBuiltYet(`${path} (meshd's Service is fixed)`);
        if (!isMap(v)) throw new MeshOperatorError(`${path} is not a map`);
        out['service'] = mergeValues(isMap(out['service']) ? out['service'] : {}, v);
        break;
      case 'serviceAnnotations':
        if (target === 'meshd') out['serviceAnnotations'] = v;
        else out['service'] = mergeValues(isMap(out['service']) ? out['service'] : {}, { annotations: v });
        break;
      default:
        notBuiltYet(`${path}`);
    }
  }
  return out;
}

/** The values shared by base and meshd: spec.values with the spec's top-level settings folded in. */
function globalValues(spec: GoMap, namespace: string): GoMap {
  let out = mergeValues(mapAt(spec, 'values', 'spec'), mapAt(spec, 'unvalidatedValues', 'spec'));
  const global: GoMap = { meshNamespace: namespace };
  for (const k of ['hub', 'tag'] as const) if (spec[k] !== undefined && spec[k] !== '') global[k] = spec[k];
  out = mergeValues(out, { global });
  if (spec['meshConfig'] !== undefined) out = mergeValues(out, { meshConfig: mapAt(spec, 'meshConfig', 'spec') });
  if (typeof spec['revision'] === 'string' && spec['revision'] !== '') out = mergeValues(out, { revision: spec['revision'] });
  return out;
}

const GATEWAY_VALUE_KEYS: Record<string, (v: GoValue) => GoMap> = {
  autoscaleEnabled: (v) => ({ autoscaling: { enabled: v } }),
  autoscaleMin: (v) => ({ autoscaling: { minReplicas: v } }),
  autoscaleMax: (v) => ({ autoscaling: { maxReplicas: v } }),
  type: (v) => ({ service: { type: v } }),
  resources: (v) => ({ resources: v }),
  env: (v) => ({ env: v }),
  labels: (v) => ({ labels: v }),
  podAnnotations: (v) => ({ podAnnotations: v }),
};

function gatewayRelease(component: 'ingressGateways' | 'egressGateways', gw: unknown, i: number, spec: GoMap, namespace: string): ComponentRelease {
  const at = `spec.components.${component}[${i}]`;
  if (!isMap(gw)) throw new MeshOperatorError(`${at} is not a map`);
  const name = gw['name'];
  if (typeof name !== 'string' || name === '') throw new MeshOperatorError(`${at}.name is required`);
  for (const k of ['hub', 'tag'] as const) if (gw[k] !== undefined) notBuiltYet(`${at}.${k} (a gateway's image is set by injection)`);
  let values: GoMap = component === 'egressGateways' ? { service: { type: 'ClusterIP' } } : {};
  const legacy = mapAt(mapAt(mapAt(spec, 'values', 'spec'), 'gateways', 'spec.values'), name, 'spec.values.gateways');
  for (const [k, v] of Object.entries(legacy)) {
    const map = GATEWAY_VALUE_KEYS[k];
    if (map === undefined) notBuiltYet(`spec.values.gateways.${name}.${k}`);
    values = mergeValues(values, map(v));
  }
  if (typeof spec['revision'] === 'string' && spec['revision'] !== '') values = mergeValues(values, { revision: spec['revision'] });
  if (gw['label'] !== undefined) values = mergeValues(values, { labels: mapAt(gw, 'label', at) });
  values = mergeValues(values, k8sValues(mapAt(gw, 'k8s', at), `${at}.k8s`, 'gateway'));
  const ns = typeof gw['namespace'] === 'string' && gw['namespace'] !== '' ? gw['namespace'] : namespace;
  return { component, chart: COMPONENT_CHART[component], release: name, namespace: ns, enabled: gw['enabled'] === true, values };
}

/**
 * The releases of an effective (merged, validated) MeshOperator spec, in install order: base, pilot,
 * then the gateways in list order. Disabled ones are included with `enabled: false`.
 * @throws MeshOperatorError naming the field for a setting that has no chart value (or a component with no chart)
 */
export function componentReleases(spec: GoMap): ComponentRelease[] {
  const values = mapAt(spec, 'values', 'spec');
  const global = mapAt(values, 'global', 'spec.values');
  const namespace = typeof spec['namespace'] === 'string' && spec['namespace'] !== '' ? spec['namespace'] : typeof global['meshNamespace'] === 'string' ? global['meshNamespace'] : 'mesh-system';
  for (const k of ['installPackagePath', 'compatibilityVersion'] as const) if (spec[k] !== undefined && spec[k] !== '') notBuiltYet(`spec.${k}`);
  const components = mapAt(spec, 'components', 'spec');
  for (const k of ['cni', 'ztunnel'] as const) if (isMap(components[k]) && components[k]['enabled'] === true) notBuiltYet(`spec.components.${k} (no ${k} chart)`);
  const shared = globalValues(spec, namespace);
  const out: ComponentRelease[] = [];
  for (const c of ['base', 'pilot'] as const) {
    const comp = mapAt(components, c, 'spec.components');
    const at = `spec.components.${c}`;
    const ns = typeof comp['namespace'] === 'string' && comp['namespace'] !== '' ? comp['namespace'] : namespace;
    let v = shared;
    if (c === 'pilot') {
      const pilot: GoMap = k8sValues(mapAt(comp, 'k8s', at), `${at}.k8s`, 'meshd');
      for (const k of ['hub', 'tag'] as const) if (comp[k] !== undefined && comp[k] !== '') pilot[k] = comp[k];
      if (Object.keys(pilot).length > 0) v = mergeValues(v, { pilot });
    } else {
      for (const k of ['hub', 'tag', 'k8s'] as const) if (comp[k] !== undefined) notBuiltYet(`${at}.${k} (the base chart has no workloads)`);
    }
    out.push({ component: c, chart: COMPONENT_CHART[c], release: c === 'base' ? 'base' : 'meshd', namespace: ns, enabled: comp['enabled'] === true, values: v });
  }
  for (const c of ['ingressGateways', 'egressGateways'] as const) {
    const list = components[c];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) throw new MeshOperatorError(`spec.components.${c} is not a list`);
    list.forEach((gw, i) => out.push(gatewayRelease(c, gw, i, spec, namespace)));
  }
  return out;
}
