/** Reading a VirtualService's destinations (route and mirror), shared by the virtualservice analyzers. */
import { num, rec, recs, str } from '../object-access.js';

/** One destination of a route. */
export interface RouteDestination {
  readonly host: string;
  readonly subset?: string;
  readonly port?: number;
  /** `http[0].route[1].destination`, for messages. */
  readonly path: string;
}

function destinationOf(v: unknown, path: string): RouteDestination | undefined {
  const d = rec(v);
  const host = str(d['host']);
  if (host === undefined || host === '') return undefined;
  const subset = str(d['subset']);
  const port = num(rec(d['port'])['number']);
  return { host, path, ...(subset ? { subset } : {}), ...(port !== undefined ? { port } : {}) };
}

/** The route destinations of `http`, `tcp` and `tls` rules. */
export function routeDestinations(spec: Record<string, unknown>): RouteDestination[] {
  const out: RouteDestination[] = [];
  for (const kind of ['http', 'tcp', 'tls'] as const) {
    recs(spec[kind]).forEach((rule, i) => {
      recs(rule['route']).forEach((r, j) => {
        const d = destinationOf(r['destination'], `${kind}[${i}].route[${j}].destination`);
        if (d) out.push(d);
      });
    });
  }
  return out;
}

/** The mirror destinations of `http` rules (`mirror` and `mirrors[].destination`). */
export function mirrorDestinations(spec: Record<string, unknown>): RouteDestination[] {
  const out: RouteDestination[] = [];
  recs(spec['http']).forEach((rule, i) => {
    const m = destinationOf(rule['mirror'], `http[${i}].mirror`);
    if (m) out.push(m);
    recs(rule['mirrors']).forEach((x, j) => {
      const d = destinationOf(x['destination'], `http[${i}].mirrors[${j}].destination`);
      if (d) out.push(d);
    });
  });
  return out;
}

/** The gateway a VirtualService names, as namespace and name (`ns/name`, `name`, or legacy `name.ns...`). */
export function gatewayRef(ref: string, vsNamespace: string): { namespace: string; name: string } {
  const slash = ref.indexOf('/');
  if (slash >= 0) return { namespace: ref.slice(0, slash), name: ref.slice(slash + 1) };
  const dot = ref.indexOf('.');
  if (dot >= 0) {
    const rest = ref.slice(dot + 1).split('.');
    return { namespace: rest[0] ?? vsNamespace, name: ref.slice(0, dot) };
  }
  return { namespace: vsNamespace, name: ref };
}

/** The reserved gateway name of the sidecars. */
export const MESH_GATEWAY = 'mesh';
