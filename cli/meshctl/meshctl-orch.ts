/**
 * meshctl's connection to the orchestrator, from the global flags: `--orchconfig`, else `KUBECONFIG`, else
 * `~/.kube/config`; `--context` picks the context. Undefined when none of them exists.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_ORCH_CLIENT_OPTIONS, loadOrchKubeConfig, OrchApiError, OrchClient, type OrchConfigSource, type OrchKubeConfig } from '../../controllers/index.js';
import { CliError, type RunContext } from '../framework/index.js';

/** The kubeconfig source the global flags and environment name, if any. */
export function meshctlOrchSource(ctx: RunContext): OrchConfigSource | undefined {
  const orchconfig = ctx.flags.string('orchconfig');
  const kubeconfigEnv = ctx.io.env['KUBECONFIG'];
  const home = ctx.io.env['HOME'];
  const defaultKubeconfig = home ? join(home, '.kube', 'config') : undefined;
  if (orchconfig === '' && !kubeconfigEnv && !(defaultKubeconfig && existsSync(defaultKubeconfig))) return undefined;
  return { orchconfig, kubeconfigEnv, defaultKubeconfig };
}

/** A client for the configured cluster. @throws CliError when no cluster is configured or the kubeconfig is bad */
export function meshctlOrchClient(ctx: RunContext, why: string): OrchClient<OrchKubeConfig> {
  const source = meshctlOrchSource(ctx);
  if (!source) throw new CliError(`${why}: no cluster configured (give --orchconfig, set KUBECONFIG, or create ~/.kube/config)`);
  try {
    const kc = loadOrchKubeConfig(source);
    const context = ctx.flags.string('context');
    if (context !== '') kc.setCurrentContext(context);
    return new OrchClient(kc, { ...DEFAULT_ORCH_CLIENT_OPTIONS, userAgent: 'meshctl' });
  } catch (e) {
    throw new CliError(`${why}: ${(e as Error).message}`);
  }
}

/** GETs an object; undefined for 404. */
export async function getOptional<T>(client: OrchClient, path: string): Promise<T | undefined> {
  try {
    return await client.request<T>('GET', path);
  } catch (e) {
    if (e instanceof OrchApiError && e.status === 404) return undefined;
    throw e;
  }
}
