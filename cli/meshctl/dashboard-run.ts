/**
 * The body of `meshctl dashboard ...`: finds the pod, forwards a local port to it through the pod dialer,
 * prints the URL, opens a browser unless `--browser=false`, and forwards until interrupted.
 */
import { spawn } from 'node:child_process';
import {
  ADDON_DASHBOARDS,
  dashboardUrl,
  dotted,
  forwardLocalPort,
  MESHD_SELECTOR,
  parsePodTarget,
  ReachError,
  resolvePod,
  resolvePodBySelector,
  type ResolvedPod,
} from '../../inspect/index.js';
import { CliError, type RunContext } from '../framework/index.js';
import { meshctlReach, type MeshctlDeps } from './meshctl-reach.js';

/** Which dashboard: an add-on by name, controlz, or a proxy's admin UI. */
export type DashboardKind = 'controlz' | 'proxy' | keyof typeof ADDON_DASHBOARDS;

function openBrowser(url: string, ctx: RunContext): void {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(cmd, [url], { detached: true, stdio: 'ignore' });
  child.once('error', (e) => ctx.io.stderr.write(`could not open a browser (${cmd}: ${e.message}); open ${url} yourself\n`));
  child.unref();
}

async function findPod(ctx: RunContext, deps: MeshctlDeps, kind: DashboardKind): Promise<{ pod: ResolvedPod; port: number; path: string; reach: ReturnType<typeof meshctlReach> }> {
  const reach = meshctlReach(ctx, deps, `dashboard ${kind}`);
  const target = ctx.args[0];
  const selector = ctx.flags.has('selector') ? ctx.flags.string('selector') : '';
  if (kind === 'controlz' || kind === 'proxy') {
    // NOTE: controlz looks in the mesh namespace (meshd's pods) unless the target or -n names another.
    const ns = kind === 'controlz' && !ctx.flags.changed('namespace') ? reach.meshNamespace : reach.namespace;
    const port = kind === 'controlz' ? ctx.flags.number('ctrlz_port') : ctx.flags.number('ui-port');
    if (target !== undefined && selector !== '') throw new CliError('give either a pod or --selector, not both');
    if (target !== undefined) return { pod: await resolvePod(reach.api, parsePodTarget(target, ns)), port, path: '', reach };
    const sel = selector !== '' ? selector : kind === 'controlz' ? MESHD_SELECTOR : '';
    if (sel === '') throw new CliError(`dashboard ${kind}: specify a pod ([<type>/]<name>[.<namespace>]) or --selector`);
    return { pod: await resolvePodBySelector(reach.api, ns, sel, `label ${sel} in namespace ${ns}`), port, path: '', reach };
  }
  const addon = ADDON_DASHBOARDS[kind]!;
  const ns = ctx.flags.changed('namespace') ? reach.namespace : reach.meshNamespace;
  try {
    const pod = await resolvePodBySelector(reach.api, ns, addon.selector, `label ${addon.selector} in namespace ${ns}`);
    return { pod, port: ctx.flags.number('ui-port'), path: addon.path, reach };
  } catch (e) {
    if (e instanceof ReachError) throw new CliError(`${e.message}: is ${addon.what} installed?`);
    throw e;
  }
}

/** Runs `dashboard <kind>`. Resolves when interrupted (SIGINT, SIGTERM, or `deps.interrupt`). */
export async function runDashboard(ctx: RunContext, deps: MeshctlDeps, kind: DashboardKind): Promise<void> {
  const address = ctx.flags.string('address');
  if (address !== 'localhost' && !/^[\d.]+$|:/.test(address)) throw new CliError(`--address "${address}": give an IP address or localhost`);
  let found;
  try {
    found = await findPod(ctx, deps, kind);
  } catch (e) {
    if (e instanceof ReachError) throw new CliError(e.message);
    throw e;
  }
  let forward;
  try {
    forward = await forwardLocalPort(found.reach.dialer, found.pod, found.port, { address, port: ctx.flags.number('port') });
  } catch (e) {
    if (e instanceof ReachError) throw new CliError(e.message);
    throw e;
  }
  forward.onDialError((err) => ctx.io.stderr.write(`forwarding to pod ${dotted(found.pod)} port ${found.port}: ${err.message}\n`));
  const url = dashboardUrl(address, forward.port, found.path);
  ctx.io.stdout.write(`${url}\n`);
  if (ctx.flags.bool('browser')) openBrowser(url, ctx);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (deps.interrupt?.aborted) stop();
    deps.interrupt?.addEventListener('abort', stop, { once: true });
  });
  await forward.close();
}
