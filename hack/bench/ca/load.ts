// How the bench drives load. Two phases: back to back (every caller calls again as soon as its answer
// arrives: the most the server can do at that concurrency) and at a fixed rate (the callers share a
// schedule of `rate` calls per second, caller i owning every N-th slot; a call's latency counts from its
// scheduled time, so a server that falls behind is charged for the wait too: no coordinated omission).
// Two drivers run them: Node callers in this process, or grpc-go callers in a child (go-load-driver.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Caller } from './callers.js';

export type Phase = { readonly kind: 'back-to-back'; readonly seconds: number } | { readonly kind: 'fixed-rate'; readonly seconds: number; readonly rate: number };

/** What one phase measured. */
export interface PhaseResult {
  /** Latency of every successful call in the measured window, ms. */
  readonly latenciesMs: number[];
  readonly errors: number;
  readonly firstError?: string;
  readonly elapsedSeconds: number;
  /** CPU the callers used over the phase. */
  readonly cpuSeconds: number;
}

/** Runs phases against the server with a fixed set of connected, warmed-up callers. */
export interface LoadDriver {
  run(phase: Phase): Promise<PhaseResult>;
  close(): Promise<void>;
}

class Recorder {
  readonly latenciesMs: number[] = [];
  errors = 0;
  firstError: string | undefined;

  async time(caller: Caller, fromMs: number): Promise<void> {
    try {
      await caller.call();
      this.latenciesMs.push(performance.now() - fromMs);
    } catch (err) {
      this.errors++;
      this.firstError ??= (err as Error).message;
    }
  }
}

async function backToBack(callers: readonly Caller[], recorder: Recorder, seconds: number): Promise<void> {
  const end = performance.now() + seconds * 1000;
  await Promise.all(callers.map(async (caller) => {
    while (performance.now() < end) await recorder.time(caller, performance.now());
  }));
}

async function fixedRate(callers: readonly Caller[], recorder: Recorder, rate: number, seconds: number): Promise<void> {
  const intervalMs = (1000 * callers.length) / rate;
  const slots = Math.floor((rate * seconds) / callers.length);
  const start = performance.now();
  await Promise.all(callers.map(async (caller, i) => {
    for (let k = 0; k < slots; k++) {
      const scheduled = start + (i * 1000) / rate + k * intervalMs;
      const wait = scheduled - performance.now();
      if (wait > 0) await sleep(wait);
      await recorder.time(caller, scheduled);
    }
  }));
}

/** Node callers in this process; `start` warms them up back to back. */
export class NodeLoadDriver implements LoadDriver {
  constructor(readonly callers: readonly Caller[]) {}

  async start(warmupSeconds: number): Promise<this> {
    await backToBack(this.callers, new Recorder(), warmupSeconds);
    return this;
  }

  async run(phase: Phase): Promise<PhaseResult> {
    const recorder = new Recorder();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    if (phase.kind === 'back-to-back') await backToBack(this.callers, recorder, phase.seconds);
    else await fixedRate(this.callers, recorder, phase.rate, phase.seconds);
    const cpu = process.cpuUsage(cpu0);
    return {
      latenciesMs: recorder.latenciesMs, errors: recorder.errors, firstError: recorder.firstError,
      elapsedSeconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6,
    };
  }

  close(): Promise<void> {
    for (const c of this.callers) c.close();
    return Promise.resolve();
  }
}
