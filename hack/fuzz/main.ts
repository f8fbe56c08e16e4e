// npm run fuzz -- [--surface all|config,xds,ca,webhooks] [--runs 1000000] [--seed 1925] [--bound-ms 10000] [--batch 500] [--max-seconds N]
//                 [--concurrency 1] (inputs in flight at once on each worker's surface) [--workers 1] (worker threads per surface,
//                 each with its own surface, e.g. its own meshd, and every workers-th batch)
// The dedicated fuzz run (the seeded share runs in `npm test` as *.fuzz.test.ts). Prints per surface:
// inputs, crashes, hangs, refusals by reason, inputs/s; exits 1 when any surface had a crash or a hang.
import { formatResult, fuzzSurface, parseFuzzArgs } from './fuzz-run.js';

try {
  const opts = parseFuzzArgs(process.argv.slice(2));
  let findings = 0;
  for (const s of opts.surfaces) {
    let lastPrint = 0;
    let shown = 0;
    const r = await fuzzSurface(s, opts, (p) => {
      // NOTE: findings are printed as they come, so a long run's are not lost if it is stopped.
      for (const f of [...p.crashes, ...p.hangs].slice(shown)) process.stderr.write(`fuzz ${s}: FINDING at input ${f.index}: ${f.message}\n  input: ${f.input}\n`);
      shown = p.crashes.length + p.hangs.length;
      if (p.seconds - lastPrint < 30) return;
      lastPrint = p.seconds;
      process.stderr.write(`fuzz ${s}: ${p.inputs} inputs, ${p.crashes.length} crashes, ${p.hangs.length} hangs, ${(p.inputs / p.seconds).toFixed(0)}/s\n`);
    });
    findings += r.crashes.length + r.hangs.length;
    process.stdout.write(`${formatResult(r)}\n`);
  }
  process.exitCode = findings > 0 ? 1 : 0;
} catch (e) {
  process.stderr.write(`fuzz: ${(e as Error).message}\n`);
  process.exitCode = 2;
}
