/**
 * Whether the data-plane proxy is ready, as Istio's agent decides it: the admin API's `/ready` says
 * `LIVE`, and the proxy has received its first configuration (a CDS and an LDS update, accepted or
 * rejected, in its stats). Returns the reason it is not ready, or undefined when it is.
 */
import { httpGet } from './http-get.js';

const STATS_PATH = '/stats?usedonly&filter=' + encodeURIComponent('^(cluster_manager\\.cds|listener_manager\\.lds)\\.(update_success|update_rejected)$');

/** Parses Envoy's text stats (`name: value` lines). */
export function parseProxyStats(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([^:\s]+):\s*(\d+)\s*$/.exec(line);
    if (m) out.set(m[1]!, Number(m[2]));
  }
  return out;
}

/** Checks the proxy at `127.0.0.1:adminPort`. */
export async function proxyNotReadyReason(adminPort: number, timeoutMs = 1_000): Promise<string | undefined> {
  const base = `http://127.0.0.1:${adminPort}`;
  let ready;
  try {
    ready = await httpGet(`${base}/ready`, timeoutMs);
  } catch (e) {
    return `the proxy admin API does not answer: ${(e as Error).message}`;
  }
  if (ready.status !== 200 || ready.body.trim() !== 'LIVE') return `the proxy is not live: HTTP ${ready.status} ${ready.body.trim()}`;
  let stats;
  try {
    stats = parseProxyStats((await httpGet(`${base}${STATS_PATH}`, timeoutMs)).body);
  } catch (e) {
    return `the proxy stats do not answer: ${(e as Error).message}`;
  }
  const got = (p: string): number => (stats.get(`${p}.update_success`) ?? 0) + (stats.get(`${p}.update_rejected`) ?? 0);
  if (got('cluster_manager.cds') === 0 || got('listener_manager.lds') === 0) return 'config not received from meshd (no CDS and LDS update yet)';
  return undefined;
}
