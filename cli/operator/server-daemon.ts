import { notImplemented, type RunContext } from '../framework/index.js';
export function runOperatorServer(ctx: RunContext): Promise<number> {
  return Promise.resolve(notImplemented(ctx.path.join(' ')));
}
