/**
 * `meshctl admin log [<pod>]`: reads and sets meshd's logging scopes through ctrlz (`/scopej/`, port
 * `--ctrlz_port`) on every running meshd pod matching `-l` in `--meshNamespace` (or the one named),
 * reached through the API server's port-forward. `--level` and `--stack-trace-level` take
 * `<scope>:<level>[,...]` (a bare `<level>` sets every scope), `--reset` puts every scope back to info with
 * no stack traces first; without them the scopes are listed (`-o short|json|yaml`).
 */
import { stringify as toYaml } from 'yaml';
import { LOG_LEVELS } from '../../core/index.js';
import { podHttpGet, podHttpRequest, ReachError, type PodDialer, type ResolvedPod } from '../../inspect/index.js';
import { CliError, type RunContext } from '../framework/index.js';
import { meshctlReach, type MeshctlDeps } from './meshctl-reach.js';
import { meshdPods, podName } from './meshd-pods.js';

/** One scope as ctrlz's `/scopej/` answers it. */
interface ScopeInfo {
  readonly name: string;
  readonly output_level: string;
  readonly stack_trace_level: string;
  readonly log_callers?: boolean;
}

/** The levels one run sets, by scope (`all` for every scope). */
type LevelChanges = Map<string, { output_level?: string; stack_trace_level?: string }>;

/** Parses `--level`/`--stack-trace-level` text into `changes`. @throws CliError naming the flag and the bad part */
export function parseScopeLevels(flagName: string, text: string, field: 'output_level' | 'stack_trace_level', changes: LevelChanges = new Map()): LevelChanges {
  if (text.trim() === '') return changes;
  for (const part of text.split(',')) {
    const pair = part.trim();
    const colon = pair.lastIndexOf(':');
    const scope = colon >= 0 ? pair.slice(0, colon).trim() : 'all';
    const level = (colon >= 0 ? pair.slice(colon + 1) : pair).trim().toLowerCase();
    if (scope === '') throw new CliError(`--${flagName} "${pair}": no scope before ":" (want <scope>:<level>)`);
    if (!(LOG_LEVELS as readonly string[]).includes(level)) {
      throw new CliError(`--${flagName} "${pair}": unknown level "${level}" (use ${LOG_LEVELS.join(', ')})`);
    }
    changes.set(scope, { ...changes.get(scope), [field]: level });
  }
  return changes;
}

/** The scopes table of one pod. */
export function scopesTable(scopes: readonly ScopeInfo[]): string {
  const rows = [['ACTIVE SCOPE', 'LOG LEVEL', 'STACK TRACE LEVEL'], ...[...scopes].sort((a, b) => a.name.localeCompare(b.name)).map((s) => [s.name, s.output_level, s.stack_trace_level])];
  const widths = [0, 1].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => `${r[0]!.padEnd(widths[0]!)}   ${r[1]!.padEnd(widths[1]!)}   ${r[2]}`).join('\n') + '\n';
}

async function putScope(deps: { readonly dialer: PodDialer }, pod: ResolvedPod, port: number, scope: string, body: object): Promise<void> {
  const res = await podHttpRequest(deps.dialer, pod, port, {
    method: 'PUT',
    path: `/scopej/${encodeURIComponent(scope)}`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 202 && res.status !== 200) {
    throw new CliError(`meshd pod ${podName(pod)}: setting scope ${scope}: HTTP ${res.status}: ${res.body.toString('utf8').trim()}`);
  }
}

/** Runs `admin log`. */
export async function runAdminLog(ctx: RunContext, deps: MeshctlDeps): Promise<void> {
  const output = ctx.flags.string('output');
  if (!['short', 'json', 'yaml'].includes(output)) throw new CliError(`--output "${output}": use short, json or yaml`);
  const changes = parseScopeLevels('level', ctx.flags.string('level'), 'output_level');
  parseScopeLevels('stack-trace-level', ctx.flags.string('stack-trace-level'), 'stack_trace_level', changes);
  const reset = ctx.flags.bool('reset');
  const port = ctx.flags.number('ctrlz_port');
  const reach = meshctlReach(ctx, deps, 'admin log');
  try {
    const selector = ctx.flags.string('selector');
    const pods = await meshdPods(reach, { target: ctx.args[0], selector, revision: ctx.flags.string('revision') });
    if (pods.length === 0) throw new CliError(`no running meshd pod in namespace ${reach.meshNamespace} matches ${selector || 'any label'}`);
    if (reset || changes.size > 0) {
      for (const pod of pods) {
        if (reset) await putScope(reach, pod, port, 'all', { output_level: 'info', stack_trace_level: 'none' });
        // NOTE: `all` first, so `--level debug,ads:error` leaves ads at error.
        for (const [scope, body] of [...changes].sort(([a], [b]) => (a === 'all' ? -1 : b === 'all' ? 1 : 0))) await putScope(reach, pod, port, scope, body);
      }
      return;
    }
    const listed: [ResolvedPod, ScopeInfo[]][] = [];
    for (const pod of pods) listed.push([pod, JSON.parse(await podHttpGet(reach.dialer, pod, port, '/scopej/')) as ScopeInfo[]]);
    if (output === 'short') {
      ctx.io.stdout.write(listed.map(([pod, scopes]) => (listed.length > 1 ? `${podName(pod)}:\n` : '') + scopesTable(scopes)).join('\n'));
      return;
    }
    const doc = listed.length === 1 ? listed[0]![1] : Object.fromEntries(listed.map(([pod, scopes]) => [podName(pod), scopes]));
    ctx.io.stdout.write(output === 'json' ? `${JSON.stringify(doc, null, 2)}\n` : toYaml(doc));
  } catch (e) {
    if (e instanceof ReachError) throw new CliError(e.message);
    throw e;
  }
}
