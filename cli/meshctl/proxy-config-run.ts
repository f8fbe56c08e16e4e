/** The bodies of `meshctl proxy-config ...`, loaded lazily by the command tree. */
import { systemClock } from '../../core/index.js';
import {
  fileConfigSource,
  parsePodTarget,
  podConfigSource,
  proxyLogLevels,
  renderProxyConfig,
  resolvePod,
  PROXY_CONFIG_OUTPUTS,
  ReachError,
  type ProxyConfigKind,
  type ProxyConfigOutput,
  type ProxyConfigSource,
} from '../../inspect/index.js';
import { CliError, type RunContext } from '../framework/index.js';
import { meshctlReach, type MeshctlDeps } from './meshctl-reach.js';

function str(ctx: RunContext, name: string): string {
  return ctx.flags.has(name) ? ctx.flags.string(name) : '';
}

function int(ctx: RunContext, name: string): number {
  return ctx.flags.has(name) ? ctx.flags.number(name) : 0;
}

function output(ctx: RunContext): ProxyConfigOutput {
  const o = ctx.flags.string('output');
  if (!(PROXY_CONFIG_OUTPUTS as readonly string[]).includes(o)) throw new CliError(`--output: unknown format "${o}" (use one of ${PROXY_CONFIG_OUTPUTS.join(', ')})`);
  return o as ProxyConfigOutput;
}

async function reachPod(ctx: RunContext, deps: MeshctlDeps): Promise<{ source: ProxyConfigSource; run: <T>(f: (r: ReturnType<typeof meshctlReach>, pod: { namespace: string; name: string }) => Promise<T>) => Promise<T> }> {
  const target = ctx.args[0];
  if (target === undefined) throw new CliError('give a pod ([<type>/]<name>[.<namespace>]) or --file');
  const reach = meshctlReach(ctx, deps, `proxy-config ${target}`);
  const pod = await resolvePod(reach.api, parsePodTarget(target, reach.namespace));
  return { source: podConfigSource(reach.dialer, pod, ctx.flags.number('proxy-admin-port')), run: (f) => f(reach, pod) };
}

/** Runs `proxy-config <kind>` with the flags of `ctx`. */
export async function runProxyConfig(ctx: RunContext, deps: MeshctlDeps, kind: ProxyConfigKind): Promise<void> {
  const out = output(ctx);
  const file = str(ctx, 'file');
  if (file !== '' && ctx.args.length > 0) throw new CliError(`give either a pod or --file, not both`);
  try {
    const source = file !== '' ? fileConfigSource(file) : (await reachPod(ctx, deps)).source;
    const port = int(ctx, 'port');
    const address = str(ctx, 'address');
    const text = await renderProxyConfig(source, {
      kind,
      output: out,
      verbose: ctx.flags.has('verbose') ? ctx.flags.bool('verbose') : true,
      fqdn: str(ctx, 'fqdn'),
      port,
      subset: str(ctx, 'subset'),
      direction: str(ctx, 'direction'),
      address,
      type: str(ctx, 'type'),
      name: str(ctx, 'name'),
      endpoint: { address, port, cluster: str(ctx, 'cluster'), status: str(ctx, 'status') },
      now: systemClock.date(),
    });
    ctx.io.stdout.write(text);
  } catch (e) {
    if (e instanceof ReachError) throw new CliError(e.message);
    throw e;
  }
}

/** Runs `proxy-config log`: reads, sets (`--level`) or resets (`--reset`) the proxy's log levels. */
export async function runProxyLog(ctx: RunContext, deps: MeshctlDeps): Promise<void> {
  try {
    const { run } = await reachPod(ctx, deps);
    const text = await run((reach, pod) => proxyLogLevels(reach.dialer, pod, ctx.flags.number('proxy-admin-port'), { level: str(ctx, 'level'), reset: ctx.flags.has('reset') && ctx.flags.bool('reset') }));
    ctx.io.stdout.write(text);
  } catch (e) {
    if (e instanceof ReachError) throw new CliError(e.message);
    throw e;
  }
}
