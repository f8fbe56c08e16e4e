/**
 * The part of an edit's latency that neither server can go under, with `--source kube`: the API server's answer to
 * the edit's last write (its watch event goes out at about the same moment: over 25 writes, a bare watcher saw the
 * event after a median 18.3 ms and the writer had the answer after 19.0 ms), then the push debounce, which both
 * servers run with the same `PILOT_DEBOUNCE_AFTER`. What a server takes past that floor is its own: the fold, the
 * generation, the writes and the clients' receipt.
 *
 * NOTE: with `--source files` the floor is not the same for both (istiod's file watcher debounces 250 ms of its own,
 * see ../shared/notes/istiod-reference.md), so no floor is given.
 */
import { parseEnvValue } from '../../../core/env/index.js';
import type { BenchOptions } from './bench-options.js';
import type { Scenario } from './markers.js';

/** The push debounce both servers run the benchmark with, unless `--server-env PILOT_DEBOUNCE_AFTER=...` says otherwise. */
export const BENCH_DEBOUNCE_AFTER = '100ms';

/**
 * The debounce an edit of `scenario` waits in both servers (ms): PILOT_DEBOUNCE_AFTER, or 0 for an endpoint change
 * when `PILOT_ENABLE_EDS_DEBOUNCE=false`; undefined when the floor is not shared (files as the source) or the
 * variable does not parse (the servers refuse it then).
 */
export function sharedDebounceMs(opts: Pick<BenchOptions, 'source' | 'serverEnv'>, scenario: Scenario): number | undefined {
  if (opts.source !== 'kube') return undefined;
  const edsDebounce = opts.serverEnv['PILOT_ENABLE_EDS_DEBOUNCE'];
  if (scenario === 'endpoint' && edsDebounce !== undefined && parseEnvValue('Bool', edsDebounce) === false) return 0;
  const after = parseEnvValue('Duration', opts.serverEnv['PILOT_DEBOUNCE_AFTER'] ?? BENCH_DEBOUNCE_AFTER);
  return typeof after === 'number' ? after : undefined;
}

/** An edit's floor (ms from the write): the API server's answer plus the shared debounce; undefined when unknown. */
export function editFloorMs(opts: Pick<BenchOptions, 'source' | 'serverEnv'>, edit: { readonly scenario: Scenario; readonly writeAnsweredMs?: number | undefined }): number | undefined {
  const debounce = sharedDebounceMs(opts, edit.scenario);
  return debounce === undefined || edit.writeAnsweredMs === undefined ? undefined : edit.writeAnsweredMs + debounce;
}
