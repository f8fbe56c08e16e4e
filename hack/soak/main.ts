// npm run soak -- [--minutes 60] [--interval-seconds 10] [--services 50] [--proxies 100] [--churn-proxies 20]
// A real meshd under churn (edits, endpoint flaps, proxies connecting and leaving), sampled each interval;
// prints a table and whether memory, handles or sockets grew, and whether shutdown left anything open.
import { formatSoak, parseSoakArgs, runSoak } from './soak-run.js';

try {
  const opts = parseSoakArgs(process.argv.slice(2));
  const r = await runSoak(opts, (s) => process.stderr.write(`soak t=${s.at}s rss=${s.rssMb.toFixed(1)}MB heap=${s.heapMb.toFixed(1)}MB handles=${s.handles} sockets=${s.sockets} proxies=${s.proxies}\n`));
  process.stdout.write(`${formatSoak(r)}\n`);
} catch (e) {
  process.stderr.write(`soak: ${(e as Error).message}\n`);
  process.exitCode = 2;
}
