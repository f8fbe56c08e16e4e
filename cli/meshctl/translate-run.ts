/**
 * `meshctl experimental translate` (an extra command, not in the spec): the xDS meshd would serve one
 * sidecar for the given mesh.io files, as Envoy's config_dump JSON (ListenersConfigDump,
 * RoutesConfigDump, ClustersConfigDump, EndpointsConfigDump), built by meshd's own sidecar generators,
 * encoded, checked against the Envoy protos' validation rules, and cross-checked for consistency (every
 * route configuration, cluster and secret a resource names is served; names unique per type).
 */
import { stringify } from 'yaml';
import { checkConsistency, encode, toJson, validate, type ProxyConfig } from '../../xds/index.js';
import { CliError, type RunContext } from '../framework/index.js';
import { EXIT_TRANSLATE_CHECK_FAILED } from './exit-codes.js';
import { offlineMeshFromFlags } from './offline-sidecar.js';

const DUMP_TYPES = [
  { key: 'listeners', dump: 'envoy.admin.v3.ListenersConfigDump', message: 'envoy.config.listener.v3.Listener', field: 'dynamic_listeners', wrap: (j: unknown) => ({ active_state: { listener: j } }) },
  { key: 'routes', dump: 'envoy.admin.v3.RoutesConfigDump', message: 'envoy.config.route.v3.RouteConfiguration', field: 'dynamic_route_configs', wrap: (j: unknown) => ({ route_config: j }) },
  { key: 'clusters', dump: 'envoy.admin.v3.ClustersConfigDump', message: 'envoy.config.cluster.v3.Cluster', field: 'dynamic_active_clusters', wrap: (j: unknown) => ({ cluster: j }) },
  { key: 'endpoints', dump: 'envoy.admin.v3.EndpointsConfigDump', message: 'envoy.config.endpoint.v3.ClusterLoadAssignment', field: 'dynamic_endpoint_configs', wrap: (j: unknown) => ({ endpoint_config: j }) },
] as const;

/** The dump and every problem found: proto validation (per resource and field) and consistency. */
export interface Translation {
  readonly dump: { readonly configs: readonly unknown[] };
  readonly problems: readonly string[];
}

/** Encodes, validates and dumps a sidecar's configuration, then runs the consistency check. */
export function translate(cfg: ProxyConfig): Translation {
  const problems: string[] = [];
  const configs: unknown[] = [];
  for (const t of DUMP_TYPES) {
    const entries: unknown[] = [];
    for (const r of cfg[t.key]) {
      const name = String(r['name'] ?? r['clusterName'] ?? '');
      let bytes: Uint8Array;
      try {
        bytes = encode(t.message, r);
      } catch (e) {
        problems.push(`${t.message} ${name}: does not encode: ${(e as Error).message}`);
        continue;
      }
      for (const i of validate(t.message, bytes)) problems.push(`${t.message} ${name}: ${i.path || '<root>'}: ${i.message}`);
      entries.push(t.wrap(toJson(t.message, bytes)));
    }
    configs.push({ '@type': `type.googleapis.com/${t.dump}`, [t.field]: entries });
  }
  for (const issue of checkConsistency(cfg)) problems.push(`consistency: ${issue}`);
  return { dump: { configs }, problems };
}

/** Runs `meshctl translate` (the tree is in translate-command.ts). */
export async function runTranslate(ctx: RunContext): Promise<number> {
  const output = ctx.flags.string('output');
  if (output !== 'json' && output !== 'yaml') throw new CliError(`--output: unknown format "${output}" (use json or yaml)`);
  const mesh = await offlineMeshFromFlags(ctx);
  const { dump, problems } = translate(mesh.config);
  ctx.io.stdout.write(output === 'json' ? `${JSON.stringify(dump, null, 2)}\n` : stringify(dump));
  for (const w of mesh.warnings) ctx.io.stderr.write(`warning: ${w}\n`);
  if (problems.length === 0) {
    ctx.io.stderr.write(`${mesh.proxy.id}: ${mesh.config.listeners.length} listeners, ${mesh.config.routes.length} route configurations, ${mesh.config.clusters.length} clusters, ${mesh.config.endpoints.length} load assignments; proto validation and consistency checks passed\n`);
    return 0;
  }
  ctx.io.stderr.write(`CHECK FAILED: ${problems.length} problem(s) in what meshd would send ${mesh.proxy.id}:\n  ${problems.join('\n  ')}\n`);
  return EXIT_TRANSLATE_CHECK_FAILED;
}
