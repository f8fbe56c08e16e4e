/** The `run` of a command whose behaviour is not built yet. */
import { notImplemented, type RunContext } from '../framework/index.js';

/** Throws `not implemented yet: <program> <command words>`. */
export function notBuilt(ctx: RunContext): never {
  return notImplemented(ctx.path.join(' '));
}
