import assert from 'node:assert/strict';
import { command } from './command.js';
import { lazyRun } from './lazy-run.js';
import type { RunContext } from './command.js';

describe('lazyRun', () => {
  it('given a command declared with lazyRun, should load the module only when the command runs, and pass the context through', async () => {
    let loads = 0;
    const run = lazyRun(
      () => { loads++; return Promise.resolve({ body: (ctx: RunContext) => ctx.args.length + 40 }); },
      (m) => m.body,
    );
    const c = command({ name: 'x', short: 'x', run });
    assert.equal(loads, 0);
    const ctx = { command: c, path: ['p', 'x'], args: ['a', 'b'], flags: new Map(), root: c } as unknown as RunContext;
    assert.equal(await c.run!(ctx), 42);
    assert.equal(loads, 1);
  });
});
