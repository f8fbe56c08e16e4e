/**
 * `meshctl x dataplane-stats`: a proxy's statistics from its admin API (`/stats`, `/stats/prometheus`,
 * `/clusters`), or the agent's merged Prometheus page (`:15020/stats/prometheus`: application, agent and
 * proxy metrics) for `prom-merged`.
 */
import { stringify } from 'yaml';
import { podHttpGet, ReachError, dotted, type PodDialer, type PodRef } from '../reach/index.js';

/** Output formats of dataplane-stats. */
export const DATAPLANE_STATS_OUTPUTS = ['short', 'json', 'yaml', 'prom', 'prom-merged'] as const;
/** Where the stats come from. */
export const DATAPLANE_STATS_TYPES = ['server', 'clusters'] as const;

/** The agent's status port, which serves the merged Prometheus page. */
export const AGENT_STATUS_PORT = 15020;

/** The port and path to GET for a type and output. @throws ReachError for a combination that does not exist */
export function dataplaneStatsPath(type: string, output: string, adminPort: number): { port: number; path: string; structured: boolean } {
  if (!(DATAPLANE_STATS_TYPES as readonly string[]).includes(type)) throw new ReachError(`--type: unknown type "${type}" (use server or clusters)`);
  if (!(DATAPLANE_STATS_OUTPUTS as readonly string[]).includes(output)) throw new ReachError(`--output: unknown format "${output}" (use one of ${DATAPLANE_STATS_OUTPUTS.join(', ')})`);
  const structured = output === 'json' || output === 'yaml';
  if (type === 'clusters') {
    if (output === 'prom' || output === 'prom-merged') throw new ReachError(`--output ${output} is for --type server only`);
    return { port: adminPort, path: structured ? '/clusters?format=json' : '/clusters', structured };
  }
  if (output === 'prom') return { port: adminPort, path: '/stats/prometheus', structured };
  if (output === 'prom-merged') return { port: AGENT_STATUS_PORT, path: '/stats/prometheus', structured };
  return { port: adminPort, path: structured ? '/stats?format=json' : '/stats', structured };
}

/** Reads the stats of the proxy in `pod` and formats them. @throws ReachError when unreachable or not JSON */
export async function dataplaneStats(dial: PodDialer, pod: PodRef, o: { readonly type: string; readonly output: string; readonly adminPort: number }): Promise<string> {
  const { port, path, structured } = dataplaneStatsPath(o.type, o.output, o.adminPort);
  const text = await podHttpGet(dial, pod, port, path);
  if (!structured) return text.endsWith('\n') || text === '' ? text : `${text}\n`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ReachError(`${path} of pod ${dotted(pod)}: not JSON: ${(e as Error).message}`);
  }
  return o.output === 'yaml' ? stringify(parsed) : `${JSON.stringify(parsed, null, 2)}\n`;
}
