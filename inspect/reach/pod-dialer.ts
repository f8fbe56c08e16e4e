/**
 * Dialers open a byte stream to a port of a pod. The real one tunnels through the API server's
 * `pods/portforward` subresource (what `kubectl port-forward` uses); {@link directDialer} connects over TCP to
 * an address you map the pod to (a pod network you can route to, or a local stand-in server in tests).
 */
import { connect } from 'node:net';
import { Duplex, PassThrough, Writable } from 'node:stream';
import { CoreV1Api, KubeConfig, PortForward, type Cluster, type Context, type User } from '@kubernetes/client-node';
// NOTE: the package's index does not re-export the handler; its file is the only way to give it own streams.
import { WebSocketHandler } from '@kubernetes/client-node/dist/web-socket-handler.js';
import { dotted, type PodRef } from './pod-target.js';
import { ReachError } from './reach-error.js';

/** Opens a stream to `port` of `pod`. Rejects with a {@link ReachError} saying which pod and port failed. */
export type PodDialer = (pod: PodRef, port: number) => Promise<Duplex>;

/** Where {@link directDialer} connects for a pod and port; undefined when it does not know the pod. */
export type PodAddressMap = (pod: PodRef, port: number) => { readonly host: string; readonly port: number } | undefined;

function message(err: unknown): string {
  const e = err as { message?: unknown } | undefined;
  return typeof e?.message === 'string' && e.message !== '' ? e.message : String(err);
}

/** A dialer that connects over TCP to the address `addressOf` maps each pod and port to. */
export function directDialer(addressOf: PodAddressMap): PodDialer {
  return async (pod, port) => {
    const to = addressOf(pod, port);
    if (!to) throw new ReachError(`cannot reach pod ${dotted(pod)} port ${port}: no address known for it`);
    return new Promise<Duplex>((resolve, reject) => {
      const socket = connect({ host: to.host, port: to.port });
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(socket);
      });
      socket.once('error', (err) => reject(new ReachError(`cannot reach pod ${dotted(pod)} port ${port} at ${to.host}:${to.port}: ${message(err)}`)));
    });
  };
}

/**
 * Why the API server may have refused a port-forward, from the pod's state: the WebSocket error carries only
 * the HTTP status. Undefined when the pod looks reachable or cannot be read.
 */
async function explainRefusal(kc: KubeConfig, pod: PodRef): Promise<string | undefined> {
  try {
    const p = await kc.makeApiClient(CoreV1Api).readNamespacedPod({ name: pod.name, namespace: pod.namespace });
    if (!p.spec?.nodeName) return 'the pod is not scheduled on a node, so no kubelet can forward to it';
    if (p.status?.phase !== 'Running') return `the pod is ${p.status?.phase ?? 'in an unknown phase'}, not Running`;
    return undefined;
  } catch (e) {
    return `and reading the pod failed too: ${message(e)}`;
  }
}

interface ClosableSocket {
  close(): void;
  on(event: 'close', listener: () => void): void;
}

/**
 * A dialer through the API server's `pods/portforward` (WebSocket channel protocol) with `kc`'s credentials.
 * Every dial opens its own WebSocket; destroying the returned stream closes it. An error the kubelet sends
 * on the port's error channel destroys the stream with that error.
 */
export function portForwardDialer(config: KubeConfig | KubeconfigData): PodDialer {
  const kc = clientKubeConfig(config);
  return async (pod, port) => {
    // NOTE: the handler closes its "standard streams" when the server closes a channel; give it its own, or it
    // would end this process's stdout.
    const streams = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough() };
    const forward = new PortForward(kc, true, new WebSocketHandler(kc, undefined, streams));
    const fromPod = new PassThrough();
    const toPod = new PassThrough();
    const errors: Buffer[] = [];
    const errorSink = new Writable({
      write(chunk: Buffer, _encoding, callback): void {
        errors.push(chunk);
        callback();
      },
    });
    let socket: ClosableSocket;
    try {
      socket = (await forward.portForward(pod.namespace, pod.name, [port], fromPod, errorSink, toPod)) as unknown as ClosableSocket;
    } catch (err) {
      const why = await explainRefusal(kc, pod);
      throw new ReachError(`port-forward to pod ${dotted(pod)} port ${port} through the API server failed: ${message(err)}${why ? ` (${why})` : ''}`);
    }
    const stream = Duplex.from({ readable: fromPod, writable: toPod });
    socket.on('close', () => {
      const text = Buffer.concat(errors).toString('utf8').trim();
      if (text !== '') stream.destroy(new ReachError(`port-forward to pod ${dotted(pod)} port ${port}: ${text}`));
      else fromPod.end();
    });
    stream.once('close', () => socket.close());
    return stream;
  };
}

/** A kubeconfig as data, as controllers/orch reads it (the client library's shapes, plus token files). */
export interface KubeconfigData {
  readonly clusters: readonly Cluster[];
  readonly users: readonly (User & { readonly tokenFile?: string })[];
  readonly contexts: readonly (Omit<Context, 'user'> & { readonly user?: string })[];
  readonly currentContext: string;
}

/** The client library's KubeConfig (its port-forward needs one). */
function clientKubeConfig(config: KubeConfig | KubeconfigData): KubeConfig {
  if (config instanceof KubeConfig) return config;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [...config.clusters],
    // NOTE: the library reads a token file only as the in-cluster "tokenFile" auth provider.
    users: config.users.map((u) => (u.tokenFile && !u.token ? { ...u, authProvider: { name: 'tokenFile', config: { tokenFile: u.tokenFile } } } : u)),
    // NOTE: the library's own parser leaves `user` undefined for a context without one, whatever its type says.
    contexts: config.contexts.map((c) => c as Context),
    currentContext: config.currentContext,
  });
  return kc;
}
