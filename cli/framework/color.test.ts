import assert from 'node:assert/strict';
import { bufferIo, colorEnabled, command, paint, runCli } from './index.js';

describe('colour', () => {
  const cases: { name: string; env: Record<string, string>; tty: boolean; want: boolean }[] = [
    { name: 'given a terminal should colour', env: { TERM: 'xterm-256color' }, tty: true, want: true },
    { name: 'given TERM=dumb should not colour', env: { TERM: 'dumb' }, tty: true, want: false },
    { name: 'given NO_COLOR should not colour', env: { TERM: 'xterm', NO_COLOR: '1' }, tty: true, want: false },
    { name: 'given a pipe should not colour', env: { TERM: 'xterm' }, tty: false, want: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(colorEnabled(c.env, c.tty), c.want));

  it('given colour on should wrap the text in escape codes, else leave it', () => {
    assert.equal(paint('x', 'red', true), '\u001b[31mx\u001b[0m');
    assert.equal(paint('x', 'red', false), 'x');
  });

  it('given colour on should colour the Error: prefix only', async () => {
    const io = { ...bufferIo(), color: true };
    const root = command({ name: 'p', short: 'p', run: () => 0 });
    assert.equal(await runCli(root, ['--bad'], io), 1);
    assert.match(io.err(), /^\u001b\[31mError:\u001b\[0m unknown flag: --bad\n/);
  });
});
