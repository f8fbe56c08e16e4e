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

  it('given a non-positive slice should throw naming sliceMs', () => {
    assert.throws(() => new TurnSlicer(0), /sliceMs must be positive/);
  });
});
