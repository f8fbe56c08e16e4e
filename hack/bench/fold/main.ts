// npm run bench:fold -- [--sizes 1000,10000,50000] [--changes 200] [--endpoints 2]
// The model's fold cost for one endpoint change: loads a mesh of N configs (per service one ServiceEntry,
// E WorkloadEntries, a VirtualService and a DestinationRule, so N/(3+E) services) into a MeshModel, then
// folds one-object batches that move one WorkloadEntry and reports the time per batch, the cost of taking
// an endpoint snapshot and reading the changed host from it, and the fold of one `endpoints` input (the
// orchestrator registry's path). Prints numbers; never fails on them.
import { parseFoldArgs, runFold, formatFold } from './fold-bench.js';

try {
  const opts = parseFoldArgs(process.argv.slice(2));
  const rows = runFold(opts);
  process.stdout.write(`${formatFold(rows)}\n`);
} catch (e) {
  process.stderr.write(`bench:fold: ${(e as Error).message}\n`);
  process.exitCode = 2;
}
