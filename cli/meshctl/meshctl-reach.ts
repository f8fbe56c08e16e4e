/**
 * What a pod-reaching meshctl command needs, from the global flags: the API server client, the dialer, the
 * namespace a target without one lands in (`-n`, else the kubeconfig context's, else `default`) and
 * `--meshNamespace`.
 */
import { portForwardDialer, type OrchReader, type PodDialer } from '../../inspect/index.js';
import type { RunContext } from '../framework/index.js';
import { meshctlOrchClient } from './meshctl-orch.js';

/** Parts the command tree passes to pod-reaching bodies; tests give a dialer to a local stand-in server. */
export interface MeshctlDeps {
  /** Replaces the API server port-forward dialer. */
  readonly podDialer?: PodDialer;
}

/** The connection of one pod-reaching command. */
export interface MeshctlReach {
  readonly api: OrchReader;
  readonly dialer: PodDialer;
  /** The namespace of a target that names none. */
  readonly namespace: string;
  /** `--meshNamespace`: where meshd runs. */
  readonly meshNamespace: string;
}

/** Builds the reach of one command run. @throws CliError when no cluster is configured or the kubeconfig is bad */
export function meshctlReach(ctx: RunContext, deps: MeshctlDeps, why: string): MeshctlReach {
  const client = meshctlOrchClient(ctx, why);
  const kc = client.kubeConfig;
  const flagNs = ctx.flags.string('namespace');
  const contextNs = kc.getContextObject(kc.getCurrentContext())?.namespace;
  return {
    api: client,
    dialer: deps.podDialer ?? portForwardDialer(kc),
    namespace: flagNs !== '' ? flagNs : contextNs || 'default',
    meshNamespace: ctx.flags.string('meshNamespace') || 'mesh-system',
  };
}
