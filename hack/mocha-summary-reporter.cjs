// Mocha's spec reporter plus one closing line in the form CI reads: "N passed, N failed[, N skipped]".
'use strict';
const Mocha = require('mocha');
const { EVENT_RUN_END } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats ?? {};
      const skipped = s.pending ? `, ${s.pending} skipped` : '';
      // Printed after the spec reporter's epilogue, so it is the last line of the run.
      process.nextTick(() => console.log(`${s.passes ?? 0} passed, ${s.failures ?? 0} failed${skipped}`));
    });
  }
}
module.exports = SummaryReporter;
