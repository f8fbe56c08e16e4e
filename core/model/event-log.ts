/**
 * Record and replay of model inputs as JSON lines: one line per input batch,
 * `{"seq":N,"inputs":[...]}`. The same log always yields the same pushes, so a recorded log
 * reproduces a bug.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { Observable, tap, type MonoTypeOperatorFunction } from 'rxjs';
import type { ModelInput } from './mesh-model.js';

/** A line of the log that is not a recorded batch. */
export class EventLogError extends Error {
  override readonly name = 'EventLogError';
}

/** Appends batches to a JSON-lines file (truncated when the recorder is made). */
export class EventLogRecorder {
  #seq = 0;
  constructor(readonly path: string) {
    writeFileSync(path, '');
  }

  /** Appends one batch. Synchronous, so lines keep the order of the batches. */
  record(inputs: readonly ModelInput[]): void {
    appendFileSync(this.path, JSON.stringify({ seq: this.#seq++, inputs }) + '\n');
  }

  /** An operator that records every batch passing through it. */
  tap<T extends readonly ModelInput[] | ModelInput>(): MonoTypeOperatorFunction<T> {
    return tap((i: T) => this.record(Array.isArray(i) ? (i as readonly ModelInput[]) : [i as ModelInput]));
  }
}

/** Reads a recorded log. Throws EventLogError naming the file and line of a bad line. */
export function readEventLog(path: string): ModelInput[][] {
  const out: ModelInput[][] = [];
  const lines = readFileSync(path, 'utf8').split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (err) {
      throw new EventLogError(`${path}:${i + 1}: not JSON: ${(err as Error).message}`);
    }
    const inputs = (parsed as { inputs?: unknown }).inputs;
    if (!Array.isArray(inputs)) throw new EventLogError(`${path}:${i + 1}: want {"seq":N,"inputs":[...]}`);
    for (const [j, input] of inputs.entries()) {
      const kind = (input as { kind?: unknown }).kind;
      if (kind !== 'config' && kind !== 'endpoints' && kind !== 'meshConfig' && kind !== 'networks') {
        throw new EventLogError(`${path}:${i + 1}: inputs[${j}].kind: want config, endpoints, meshConfig or networks`);
      }
    }
    out.push(inputs as ModelInput[]);
  });
  return out;
}

/** Replays a recorded log as an Observable of batches, in order, then completes. */
export function replayEventLog(path: string): Observable<readonly ModelInput[]> {
  return new Observable((subscriber) => {
    for (const batch of readEventLog(path)) {
      if (subscriber.closed) return;
      subscriber.next(batch);
    }
    subscriber.complete();
  });
}
