// npm run bench:fanout -- [--streams 2000] [--bytes 600] [--rounds 20] [--workers 1] [--ack-bytes 200] [--slice 0] [--json FILE]
// The fan-out floor: a bare @grpc/grpc-js server writes one pre-encoded message to N open streams (clients in
// worker threads, one channel each, each answering with an ACK-sized reply); prints how long the writes and
// the receipts take. What an endpoint push of meshd at S=1000/N=2000 cannot go below on this machine.
import { writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fmtMs } from '../stats.js';
import { parseFanoutArgs, runFanoutFloor } from './fanout-floor.js';

async function main(argv: readonly string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseFanoutArgs(argv);
  } catch (e) {
    process.stderr.write(`bench:fanout: ${(e as Error).message}\n`);
    return 2;
  }
  const o = parsed.options;
  const log = (line: string): void => void process.stderr.write(`[bench:fanout] ${line}\n`);
  const load0 = loadavg();
  const r = await runFanoutFloor(o, log);
  const row = (name: string, s: { p50: number | undefined; max: number | undefined }): string => `${name.padEnd(34)} ${fmtMs(s.p50).padStart(9)} ${fmtMs(s.max).padStart(9)}`;
  process.stdout.write(
    [
      `fan-out floor: ${o.streams} streams, ${o.bytes} B each, ${o.rounds} rounds, ${o.workers} client worker(s), replies ${o.ackBytes} B, ` +
        `${o.slice > 0 ? `${o.slice} writes per turn` : 'all writes in one turn'}; ${availableParallelism()} CPUs, load ${load0.map((l) => l.toFixed(2)).join(' ')}`,
      `${'per round (ms from the first write)'.padEnd(34)} ${'median'.padStart(9)} ${'worst'.padStart(9)}`,
      row('server write loop (sync)', r.writeLoopMs),
      row('last write callback', r.lastCallbackMs),
      row('p99 client receipt', r.p99ArrivalMs),
      row('last client receipt', r.lastArrivalMs),
      `server thread CPU per round: ${r.serverCpuMsPerRound.toFixed(1)} ms; client workers busy ${(100 * r.rounds.reduce((s, x) => s + x.clientBusy, 0) / r.rounds.length).toFixed(0)} % until their last receipt`,
    ].join('\n') + '\n',
  );
  if (parsed.json) writeFileSync(parsed.json, `${JSON.stringify(r, null, 2)}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`bench:fanout: ${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 1;
  },
);
