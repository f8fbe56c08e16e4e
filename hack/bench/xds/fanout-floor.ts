/**
 * The fan-out floor (`npm run bench:fanout`): what a bare @grpc/grpc-js server takes to write one pre-encoded
 * message to N open server streams, and the same clients to receive it, on this machine. No xDS, no
 * generation, no encoding: the part of an endpoint push no control plane in Node can go below. The server runs
 * on the main thread, the clients (one channel and stream each, as the xDS bench clients) in worker threads.
 */
import * as grpc from '@grpc/grpc-js';
import { Worker } from 'node:worker_threads';
import { summarize, type Summary } from '../stats.js';

/** The method the floor server serves (a raw bidi stream of bytes). */
export const FLOOR_METHOD = '/mesh.bench.Fanout/Stream';

/** A time on the wall clock shared by threads, with sub-millisecond resolution. */
export function floorNow(): number {
  return performance.timeOrigin + performance.now();
}

/** What a client worker is started with. */
export interface FloorWorkerInit {
  readonly address: string;
  readonly clients: number;
  /** Bytes of the reply each client writes per message received; 0 = no reply. */
  readonly ackBytes: number;
  /** Streams being opened at a time. */
  readonly maxConnecting: number;
}

/** Commands from the main thread to a client worker. */
export type FloorCommand = { readonly cmd: 'arm'; readonly round: number } | { readonly cmd: 'close' };

/** Events from a client worker. */
export type FloorEvent =
  | { readonly ev: 'open' }
  | { readonly ev: 'armed'; readonly round: number }
  /** Every client of the worker received the round's message: arrival times (shared wall clock, ms) and the worker's busy ms since `arm`. */
  | { readonly ev: 'arrived'; readonly round: number; readonly times: number[]; readonly busyMs: number }
  | { readonly ev: 'closed' };

/** Options of a floor run (`npm run bench:fanout -- --streams N ...`). */
export interface FanoutOptions {
  readonly streams: number;
  /** Size of the message written to every stream (an endpoint push is ~600 B per client at S=1000). */
  readonly bytes: number;
  readonly rounds: number;
  /** Client worker threads (the streams are split evenly). */
  readonly workers: number;
  /** Bytes each client writes back per message (an ACK is ~150-250 B); 0 = none. */
  readonly ackBytes: number;
  /** Writes per event-loop turn on the server (then it yields with setImmediate); 0 = all in one turn. */
  readonly slice: number;
}

/** Defaults: the S=1000/N=2000 endpoint push. */
export const FANOUT_DEFAULTS: FanoutOptions = { streams: 2000, bytes: 600, rounds: 20, workers: 1, ackBytes: 200, slice: 0 };

/** One round, in ms from the first write. */
export interface FanoutRound {
  /** The server's synchronous write loop (every `call.write` handed to grpc-js). */
  readonly writeLoopMs: number;
  /** The last write callback (grpc-js handed the last message to HTTP/2). */
  readonly lastCallbackMs: number;
  readonly arrivalMs: Summary;
  /** Busy share of the client workers' event loops from arming to their last arrival (mean over workers). */
  readonly clientBusy: number;
}

/** Everything a floor run measured. */
export interface FanoutResult {
  readonly options: FanoutOptions;
  readonly rounds: readonly FanoutRound[];
  /** Over rounds: the median and worst of each round's last arrival and of its p99 arrival. */
  readonly lastArrivalMs: Summary;
  readonly p99ArrivalMs: Summary;
  readonly lastCallbackMs: Summary;
  readonly writeLoopMs: Summary;
  /** CPU ms of the server's thread per round (user + system: its writes, the sockets, reading the replies). */
  readonly serverCpuMsPerRound: number;
}

/** A client worker and the events it posted that nobody took yet. */
class FloorWorker {
  readonly worker: Worker;
  readonly #events: FloorEvent[] = [];
  readonly #waiters: (() => void)[] = [];
  #error: Error | undefined;

  constructor(init: FloorWorkerInit) {
    this.worker = new Worker(new URL('./fanout-floor-worker.js', import.meta.url), { workerData: init });
    this.worker.on('message', (e: FloorEvent) => {
      this.#events.push(e);
      for (const w of this.#waiters.splice(0)) w();
    });
    const fail = (e: Error): void => {
      this.#error ??= e;
      for (const w of this.#waiters.splice(0)) w();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`fan-out client worker exited with code ${code}`)));
  }

  /** The next event named `ev`, or an error once `deadline` (epoch ms) passes or the worker died. */
  next<E extends FloorEvent['ev']>(ev: E, deadline: number): Promise<Extract<FloorEvent, { ev: E }>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`fan-out floor: no '${ev}' from a client worker in time`)), Math.max(0, deadline - Date.now()));
      const attempt = (): void => {
        const i = this.#events.findIndex((e) => e.ev === ev);
        if (i >= 0) {
          clearTimeout(timer);
          resolve(this.#events.splice(i, 1)[0] as Extract<FloorEvent, { ev: E }>);
        } else if (this.#error) {
          clearTimeout(timer);
          reject(this.#error);
        } else this.#waiters.push(attempt);
      };
      attempt();
    });
  }

  post(c: FloorCommand): void {
    this.worker.postMessage(c);
  }
}

const identity = (b: Buffer): Buffer => b;

/** Runs the floor: a bare grpc-js server on 127.0.0.1:0, `streams` clients, `rounds` fan-outs of one message. */
export async function runFanoutFloor(o: FanoutOptions, log: (line: string) => void = () => undefined): Promise<FanoutResult> {
  const server = new grpc.Server({ 'grpc.enable_channelz': 0 });
  const streams: grpc.ServerDuplexStream<Buffer, Buffer>[] = [];
  let acks = 0;
  /** Called after every reply read and every write callback (the end of a round waits on both). */
  let progress: () => void = () => undefined;
  server.register(
    FLOOR_METHOD,
    (call: grpc.ServerDuplexStream<Buffer, Buffer>) => {
      let first = true;
      call.on('data', () => {
        if (!first) {
          acks++;
          progress();
          return;
        }
        first = false;
        streams.push(call);
        call.write(Buffer.from('ok'));
      });
      call.on('error', () => undefined);
    },
    identity,
    identity,
    'bidi',
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  const workers: FloorWorker[] = [];
  try {
    const per = Math.ceil(o.streams / o.workers);
    for (let w = 0, left = o.streams; w < o.workers && left > 0; w++, left -= per) {
      workers.push(new FloorWorker({ address: `127.0.0.1:${port}`, clients: Math.min(per, left), ackBytes: o.ackBytes, maxConnecting: 200 }));
    }
    await Promise.all(workers.map((w) => w.next('open', Date.now() + 120_000)));
    log(`${streams.length} streams open (${workers.length} client worker(s))`);
    const message = Buffer.alloc(o.bytes, 0x6d);
    const rounds: FanoutRound[] = [];
    const cpu0 = process.threadCpuUsage();
    for (let r = 0; r < o.rounds; r++) {
      for (const w of workers) w.post({ cmd: 'arm', round: r });
      await Promise.all(workers.map((w) => w.next('armed', Date.now() + 30_000)));
      const acksBefore = acks;
      let callbacks = 0;
      let lastCallback = 0;
      const t0 = floorNow();
      let i = 0;
      for (const call of streams) {
        call.write(message, () => {
          if (++callbacks === streams.length) lastCallback = floorNow();
          progress();
        });
        if (o.slice > 0 && ++i % o.slice === 0) await new Promise((res) => setImmediate(res));
      }
      const writeLoop = floorNow() - t0;
      const arrived = await Promise.all(workers.map((w) => w.next('arrived', Date.now() + 60_000)));
      // NOTE: the next round starts once the replies of this one are read, as a push after the ACKs.
      const settled = (): boolean => acks - acksBefore >= (o.ackBytes > 0 ? streams.length : 0) && callbacks >= streams.length;
      if (!settled()) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('fan-out floor: replies or write callbacks missing after 30 s')), 30_000);
          progress = () => {
            if (!settled()) return;
            clearTimeout(timer);
            progress = () => undefined;
            resolve();
          };
        });
      }
      const times = arrived.flatMap((a) => a.times.map((t) => t - t0));
      const busy = arrived.map((a) => a.busyMs / Math.max(1e-3, Math.max(...a.times) - t0));
      rounds.push({ writeLoopMs: writeLoop, lastCallbackMs: lastCallback - t0, arrivalMs: summarize(times), clientBusy: busy.reduce((s, b) => s + b, 0) / busy.length });
    }
    const cpu = process.threadCpuUsage(cpu0);
    return {
      options: o,
      rounds,
      lastArrivalMs: summarize(rounds.map((r) => r.arrivalMs.max ?? 0)),
      p99ArrivalMs: summarize(rounds.map((r) => r.arrivalMs.p99 ?? 0)),
      lastCallbackMs: summarize(rounds.map((r) => r.lastCallbackMs)),
      writeLoopMs: summarize(rounds.map((r) => r.writeLoopMs)),
      serverCpuMsPerRound: (cpu.user + cpu.system) / 1000 / o.rounds,
    };
  } finally {
    for (const w of workers) w.post({ cmd: 'close' });
    await Promise.all(workers.map((w) => w.next('closed', Date.now() + 10_000).catch(() => undefined)));
    await Promise.all(workers.map((w) => w.worker.terminate()));
    server.forceShutdown();
  }
}

/** The command line of `npm run bench:fanout`. */
export const FANOUT_USAGE = 'usage: npm run bench:fanout -- [--streams 2000] [--bytes 600] [--rounds 20] [--workers 1] [--ack-bytes 200] [--slice 0] [--json FILE]';

/** Parses the arguments after `--`; throws an Error naming the bad flag. */
export function parseFanoutArgs(argv: readonly string[]): { readonly options: FanoutOptions; readonly json: string | undefined } {
  const o: { -readonly [K in keyof FanoutOptions]: FanoutOptions[K] } = { ...FANOUT_DEFAULTS };
  let json: string | undefined;
  const flags: Record<string, keyof FanoutOptions> = {
    '--streams': 'streams', '--bytes': 'bytes', '--rounds': 'rounds', '--workers': 'workers', '--ack-bytes': 'ackBytes', '--slice': 'slice',
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const text = argv[++i];
    if (text === undefined) throw new Error(`${flag}: missing value\n${FANOUT_USAGE}`);
    if (flag === '--json') {
      json = text;
      continue;
    }
    const key = flags[flag];
    if (!key) throw new Error(`unknown flag "${flag}"\n${FANOUT_USAGE}`);
    const v = Number(text);
    const min = key === 'ackBytes' || key === 'slice' ? 0 : 1;
    if (!Number.isInteger(v) || v < min) throw new Error(`${flag}: expected an integer >= ${min}, got "${text}"\n${FANOUT_USAGE}`);
    o[key] = v;
  }
  return { options: o, json };
}

