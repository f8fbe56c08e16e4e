/** The bodies of `meshctl x dataplane-stats` and `meshctl x authz check`, loaded lazily. */
import {
  authzPolicies,
  authzTable,
  dataplaneStats,
  dataplaneStatsPath,
  fileConfigSource,
  parsePodTarget,
  podConfigSource,
  ReachError,
  resolvePod,
} from '../../inspect/index.js';
import { CliError, type RunContext } from '../framework/index.js';
import { meshctlReach, type MeshctlDeps } from './meshctl-reach.js';

const ADMIN_PORT = 15000;

async function guard<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof ReachError) throw new CliError(e.message);
    throw e;
  }
}

function target(ctx: RunContext, what: string): string {
  const t = ctx.args[0];
  if (t === undefined) throw new CliError(`${what}: give a pod ([<type>/]<name>[.<namespace>])`);
  return t;
}

/** Runs `x dataplane-stats <pod>`. */
export async function runDataplaneStats(ctx: RunContext, deps: MeshctlDeps): Promise<void> {
  const type = ctx.flags.string('type');
  const output = ctx.flags.string('output');
  await guard(async () => {
    // NOTE: check the flags before reaching the cluster, so a typo fails at once.
    dataplaneStatsPath(type, output, ADMIN_PORT);
    const t = target(ctx, 'dataplane-stats');
    const reach = meshctlReach(ctx, deps, `dataplane-stats ${t}`);
    const pod = await resolvePod(reach.api, parsePodTarget(t, reach.namespace));
    ctx.io.stdout.write(await dataplaneStats(reach.dialer, pod, { type, output, adminPort: ADMIN_PORT }));
  });
}

/** Runs `x authz check <pod>` or `x authz check -f <dump>`. */
export async function runAuthzCheck(ctx: RunContext, deps: MeshctlDeps): Promise<void> {
  const file = ctx.flags.string('file');
  if (file !== '' && ctx.args.length > 0) throw new CliError('give either a pod or --file, not both');
  await guard(async () => {
    let source;
    if (file !== '') source = fileConfigSource(file);
    else {
      const t = target(ctx, 'authz check');
      const reach = meshctlReach(ctx, deps, `authz check ${t}`);
      const pod = await resolvePod(reach.api, parsePodTarget(t, reach.namespace));
      source = podConfigSource(reach.dialer, pod, ADMIN_PORT);
    }
    ctx.io.stdout.write(authzTable(authzPolicies(await source.configDump())));
  });
}
