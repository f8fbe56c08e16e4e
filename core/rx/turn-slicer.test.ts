import assert from 'node:assert/strict';
import { nextTurn, TurnSlicer } from './turn-slicer.js';

describe('TurnSlicer', () => {
  it('given a turn that ran past its slice should report over budget until the loop turned', async () => {
    const slicer = new TurnSlicer(5);
    assert.equal(slicer.overBudget(), false, 'the first check opens the slice');
    const end = performance.now() + 10;
    while (performance.now() < end) {
      // NOTE: a busy turn, as a promise chain of pushes would be
    }
    assert.equal(slicer.overBudget(), true);
    await nextTurn();
    assert.equal(slicer.overBudget(), false, 'a new turn opens a new slice');
  });

  it('given two chains with more work than one slice should let both progress, taking whole slices in turns', async () => {
    let t = 0;
    const slicer = new TurnSlicer(10, () => t);
    const log: string[] = [];
    const chain = async (name: string): Promise<void> => {
      for (let i = 0; i < 40; i++) {
        if (slicer.overBudget()) await nextTurn();
        t += 1; // NOTE: one millisecond of work on the virtual clock
        log.push(name);
      }
    };
    await Promise.all([chain('a'), chain('b')]);
    const runs = log.join('').match(/a+|b+/g)!.map((r) => `${r[0]}${r.length}`);
    // NOTE: before, b was turned away every turn until a had no work left: a40 b40.
    assert.ok(log.indexOf('b') < log.lastIndexOf('a'), `b progressed before a finished: ${runs.join(' ')}`);
    assert.deepEqual(runs.slice(0, 4).map((r) => r[0]), ['a', 'b', 'a', 'b'], `slices in turns: ${runs.join(' ')}`);
    // NOTE: a run is the 10 ms slice plus the step that crosses it, plus the steps a resumed chain runs before
    // it checks (this pattern works once after each await): at most 13.
    assert.ok(runs.slice(0, -1).every((r) => Number(r.slice(1)) <= 13), `no chain ran past its slice: ${runs.join(' ')}`);
  });

  it('given a non-positive slice should throw naming sliceMs', () => {
    assert.throws(() => new TurnSlicer(0), /sliceMs must be positive/);
  });
});
