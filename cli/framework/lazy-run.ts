/**
 * Lazily loaded command bodies. A command tree declares names, flags and help for every command, but a
 * run needs only one command's code: `lazyRun` keeps the body's module (and everything it imports) out
 * of start-up until that command runs.
 */
import type { RunFn } from './command.js';

/**
 * A `run` that imports its module on first call and delegates to the function `pick` selects, e.g.
 * `run: lazyRun(() => import('./proxy-config-run.js'), (m) => m.runProxyConfig)`.
 */
export function lazyRun<M>(load: () => Promise<M>, pick: (module: M) => RunFn): RunFn {
  return async (ctx) => pick(await load())(ctx);
}
