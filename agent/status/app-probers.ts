/**
 * The application probes the injector rewrote to the agent (`/app-health/<container>/<readyz|livez|startupz>`),
 * as Istio's ISTIO_KUBE_APP_PROBERS: JSON mapping each path to a kubelet probe (`httpGet`, `tcpSocket`
 * or `grpc`, with `timeoutSeconds`). The agent runs the probe against the app on localhost.
 */
import * as grpc from '@grpc/grpc-js';
import { connect } from 'node:net';
import { httpGet } from './http-get.js';

/** One rewritten probe. */
export interface AppProber {
  readonly httpGet?: { readonly path?: string; readonly port: number; readonly scheme?: 'HTTP' | 'HTTPS'; readonly host?: string; readonly httpHeaders?: readonly { name: string; value: string }[] };
  readonly tcpSocket?: { readonly port: number; readonly host?: string };
  readonly grpc?: { readonly port: number; readonly service?: string };
  readonly timeoutSeconds?: number;
}

/** A probers document that cannot be used; names what was wrong. */
export class AppProbersError extends Error {
  override readonly name = 'AppProbersError';
}

/** Parses and checks the probers JSON (`where` names its source in errors). */
export function parseAppProbers(text: string, where: string): Map<string, AppProber> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new AppProbersError(`${where}: not JSON: ${(e as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new AppProbersError(`${where}: must map /app-health/... paths to probes`);
  const out = new Map<string, AppProber>();
  for (const [path, p] of Object.entries(doc as Record<string, AppProber>)) {
    if (!/^\/app-health\/[^/]+\/(readyz|livez|startupz)$/.test(path)) throw new AppProbersError(`${where}: "${path}" is not /app-health/<container>/readyz|livez|startupz`);
    const kinds = ['httpGet', 'tcpSocket', 'grpc'].filter((k) => (p as Record<string, unknown>)[k] !== undefined);
    if (kinds.length !== 1) throw new AppProbersError(`${where}: ${path}: needs exactly one of httpGet, tcpSocket, grpc`);
    const port = (p.httpGet ?? p.tcpSocket ?? p.grpc)!.port;
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new AppProbersError(`${where}: ${path}: port ${JSON.stringify(port)} is not a port number`);
    out.set(path, p);
  }
  return out;
}

/** Runs one probe; resolves to the HTTP status the agent answers (200 healthy, 500 not) and a reason. */
export async function runAppProbe(p: AppProber, localhost = '127.0.0.1'): Promise<{ status: number; reason: string }> {
  const timeoutMs = (p.timeoutSeconds ?? 1) * 1000;
  try {
    if (p.httpGet) {
      const h = p.httpGet;
      const host = h.host || localhost;
      const url = `${(h.scheme ?? 'HTTP').toLowerCase()}://${host.includes(':') ? `[${host}]` : host}:${h.port}${h.path ?? '/'}`;
      const headers = Object.fromEntries((h.httpHeaders ?? []).map((x) => [x.name, x.value]));
      const r = await httpGet(url, timeoutMs, headers);
      // NOTE: as the kubelet: 200-399 is success.
      return r.status >= 200 && r.status < 400 ? { status: 200, reason: `HTTP ${r.status}` } : { status: 500, reason: `HTTP ${r.status}` };
    }
    if (p.tcpSocket) {
      await tcpConnect(p.tcpSocket.host || localhost, p.tcpSocket.port, timeoutMs);
      return { status: 200, reason: 'connected' };
    }
    const status = await grpcHealth(localhost, p.grpc!.port, p.grpc!.service ?? '', timeoutMs);
    return status === 1 ? { status: 200, reason: 'SERVING' } : { status: 500, reason: `health status ${status}` };
  } catch (e) {
    return { status: 500, reason: (e as Error).message };
  }
}

function tcpConnect(host: string, port: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = connect({ host, port, timeout: timeoutMs });
    s.once('connect', () => {
      s.destroy();
      resolve();
    });
    s.once('timeout', () => s.destroy(new Error(`no connection within ${timeoutMs}ms`)));
    s.once('error', reject);
  });
}

/** grpc.health.v1.Health/Check with hand-encoded messages (field 1: service / status). */
function grpcHealth(host: string, port: number, service: string, timeoutMs: number): Promise<number> {
  const client = new grpc.Client(`${host}:${port}`, grpc.credentials.createInsecure());
  const name = Buffer.from(service);
  const request = service ? Buffer.concat([Buffer.from([0x0a, name.length]), name]) : Buffer.alloc(0);
  return new Promise<number>((resolve, reject) => {
    client.makeUnaryRequest(
      '/grpc.health.v1.Health/Check',
      (b: Buffer) => b,
      (b: Buffer) => b,
      request,
      { deadline: Date.now() + timeoutMs },
      (err, res) => {
        client.close();
        if (err) return reject(new Error(`gRPC health check: ${err.details || err.message}`));
        // Response: field 1 varint (status); empty means UNKNOWN (0).
        resolve(res && res.length >= 2 && res[0] === 0x08 ? res[1]! : 0);
      },
    );
  });
}
