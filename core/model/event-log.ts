/**
 * The event log: every input meshd acts on, as JSON lines, each stamped with its time on the Clock, so
 * that a replay on a virtual clock makes the same debounce decisions and the same pushes.
 *
 * ```
 * {"type":"start","version":3,"wallStart":...,"meta":{...}}          the assembly's options (first line)
 * {"type":"inputs","seq":1,"at":12.5,"inputs":[ModelInput...]}       config, endpoints, mesh config, networks
 * {"type":"publish","seq":2,"at":..,"token":1}                       a debounce window closed: snapshot 1
 * {"type":"connect","seq":3,"at":..,"connection":"..","protocol":"sotw","node":{ProxyNode}}
 * {"type":"request","seq":4,"at":..,"connection":"..","token":4,"request":{...}}   subscriptions, NACKs
 * {"type":"push","seq":5,"at":..,"connection":"..","token":4,"full":true,"reasons":{..},"configs":[..]}
 * {"type":"disconnect","seq":6,"at":..,"connection":".."}
 * {"type":"overflow","seq":7,"at":..,"dropped":17}                   records lost to a full buffer
 * ```
 *
 * `at` is milliseconds since the recorder started, on the clock's monotonic scale. Lines of the first
 * format (`{"seq":N,"inputs":[...]}`, no type and no time) are read as inputs at time 0.
 *
 * Version 3 also records the decisions of the live run that timing made: when each debounce window
 * closed (`publish`) and what each connection was pushed when (`push`: the request after the push
 * queue's merges, and the snapshot it read), so a replay follows them instead of re-deciding them on a
 * virtual clock. Version 2 logs (inputs, connects, requests, disconnects only) are still read.
 */
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';
import { Observable, tap, type MonoTypeOperatorFunction } from 'rxjs';
import { systemClock, type Clock } from '../clock/index.js';
import type { ConfigKey } from './config-key.js';
import type { ModelInput } from './mesh-model.js';
import type { ProxyNode } from './proxy.js';

/** A line of the log that cannot be read. */
export class EventLogError extends Error {
  override readonly name = 'EventLogError';
}

/** The first line: what the replay needs to rebuild the same pipeline. */
export interface EventLogHeader {
  readonly type: 'start';
  /** 3 (this meshd's); 2 for logs without `publish` and `push` records. */
  readonly version: 2 | 3;
  /** The wall-clock time (epoch ms) at `at` 0. */
  readonly wallStart: number;
  /** The assembly's options (model, generators, transport, nonce seed), as the assembly wrote them. */
  readonly meta: Readonly<Record<string, unknown>>;
}

/** One recorded event (without its stamp). */
export type EventLogEntry =
  | { readonly type: 'inputs'; readonly inputs: readonly ModelInput[] }
  | { readonly type: 'connect'; readonly connection: string; readonly protocol: 'sotw' | 'delta'; readonly node: ProxyNode }
  /** A request that may change what a stream is sent; `request` is the transport's plain-JSON form. */
  | { readonly type: 'request'; readonly connection: string; readonly token: number | undefined; readonly request: Readonly<Record<string, unknown>> }
  | { readonly type: 'disconnect'; readonly connection: string }
  /** The debounce emitted a push that published snapshot `token`. */
  | { readonly type: 'publish'; readonly token: number }
  /**
   * A connection started handling a push: the request as the push queue handed it over (merged with
   * others that waited), the snapshot it reads, in the order the connection handled it among its requests.
   */
  | {
      readonly type: 'push';
      readonly connection: string;
      readonly token: number | undefined;
      readonly full: boolean;
      readonly forced?: boolean;
      readonly reasons: Readonly<Record<string, number>>;
      readonly configs: readonly ConfigKey[];
    }
  | { readonly type: 'overflow'; readonly dropped: number };

/** A recorded event with its sequence number and time (ms since the start of the log). */
export type EventLogRecord = EventLogEntry & { readonly seq: number; readonly at: number };

/** A whole log as read back. */
export interface EventLog {
  /** Undefined for a log of the first format. */
  readonly header: EventLogHeader | undefined;
  readonly records: readonly EventLogRecord[];
}

/** Options of an EventLogRecorder. */
export interface EventLogRecorderOptions {
  /** Stamps the records (default the system clock). */
  readonly clock?: Clock;
  /** Bytes buffered for the file before records are dropped (default 16 MiB). */
  readonly maxBufferedBytes?: number;
  /**
   * Called once when records start being dropped (the buffer is full because the disk is slower than the
   * events), with the records dropped so far. The file also gets an `overflow` record once writing resumes.
   */
  readonly onOverflow?: (dropped: number) => void;
  /** Called when writing the file fails (the recorder then stops recording). */
  readonly onError?: (err: Error) => void;
}

/**
 * Writes an event log asynchronously: `record` serializes a line and hands it to a write stream, never
 * waiting for the disk, so the push path is not slowed by it. The bytes waiting for the disk are bounded;
 * past the bound records are dropped, counted, reported through `onOverflow` and marked in the file.
 */
export class EventLogRecorder {
  readonly #clock: Clock;
  readonly #max: number;
  readonly #opts: EventLogRecorderOptions;
  readonly #out: WriteStream;
  readonly #t0: number;
  #seq = 0;
  #dropped = 0;
  #droppedTotal = 0;
  #failed = false;
  #closed: Promise<void> | undefined;

  /** Truncates `path` and writes the header line. */
  constructor(
    readonly path: string,
    meta: Readonly<Record<string, unknown>>,
    opts: EventLogRecorderOptions = {},
  ) {
    this.#opts = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#max = opts.maxBufferedBytes ?? 16 * 1024 * 1024;
    this.#t0 = this.#clock.now();
    this.#out = createWriteStream(path, { flags: 'w' });
    this.#out.on('error', (err) => {
      if (this.#failed) return;
      this.#failed = true;
      opts.onError?.(err);
    });
    const header: EventLogHeader = { type: 'start', version: 3, wallStart: this.#clock.wallNow(), meta };
    this.#out.write(JSON.stringify(header) + '\n');
  }

  /** Records dropped so far because the buffer was full. */
  get dropped(): number {
    return this.#droppedTotal;
  }

  /** Stamps and queues one record; drops it (counted) when the buffer is full. Never blocks. */
  record(entry: EventLogEntry): void {
    if (this.#failed || this.#closed) return;
    const at = this.#clock.now() - this.#t0;
    if (this.#out.writableLength >= this.#max) {
      if (this.#dropped === 0) this.#opts.onOverflow?.(this.#droppedTotal + 1);
      this.#dropped++;
      this.#droppedTotal++;
      return;
    }
    this.#flushOverflow(at);
    this.#out.write(JSON.stringify({ ...entry, seq: ++this.#seq, at }) + '\n');
  }

  /** An operator that records every batch of model inputs passing through it. */
  tap<T extends readonly ModelInput[] | ModelInput>(): MonoTypeOperatorFunction<T> {
    return tap((i: T) => this.record({ type: 'inputs', inputs: Array.isArray(i) ? (i as readonly ModelInput[]) : [i as ModelInput] }));
  }

  /** Writes what is buffered (and the count of dropped records) and closes the file. */
  close(): Promise<void> {
    this.#closed ??= new Promise<void>((resolve) => {
      if (!this.#failed) this.#flushOverflow(this.#clock.now() - this.#t0);
      this.#out.end(() => resolve());
      this.#out.once('error', () => resolve());
    });
    return this.#closed;
  }

  #flushOverflow(at: number): void {
    if (this.#dropped === 0) return;
    this.#out.write(JSON.stringify({ type: 'overflow', dropped: this.#dropped, seq: ++this.#seq, at }) + '\n');
    this.#dropped = 0;
  }
}

const TYPES = new Set(['inputs', 'connect', 'request', 'disconnect', 'overflow', 'publish', 'push']);
const INPUT_KINDS = new Set(['config', 'endpoints', 'meshConfig', 'networks']);

function checkInputs(inputs: unknown, where: string): void {
  if (!Array.isArray(inputs)) throw new EventLogError(`${where}: want "inputs": [...]`);
  for (const [j, input] of inputs.entries()) {
    if (!INPUT_KINDS.has((input as { kind?: unknown }).kind as string)) {
      throw new EventLogError(`${where}: inputs[${j}].kind: want config, endpoints, meshConfig or networks`);
    }
  }
}

function checkPush(p: Record<string, unknown>, where: string): void {
  if (p['token'] !== undefined && !Number.isInteger(p['token'])) throw new EventLogError(`${where}: token: want a whole number`);
  if (typeof p['full'] !== 'boolean') throw new EventLogError(`${where}: full: want true or false`);
  const reasons = p['reasons'];
  if (reasons === null || typeof reasons !== 'object' || Array.isArray(reasons) || !Object.values(reasons).every((n) => Number.isInteger(n))) {
    throw new EventLogError(`${where}: reasons: want an object of counts by reason`);
  }
  const configs = p['configs'];
  const isKey = (k: unknown): boolean => k !== null && typeof k === 'object' && ['kind', 'namespace', 'name'].every((f) => typeof (k as Record<string, unknown>)[f] === 'string');
  if (!Array.isArray(configs) || !configs.every(isKey)) throw new EventLogError(`${where}: configs: want a list of {kind, namespace, name}`);
}

/** Reads a recorded log. Throws EventLogError naming the file and line of a bad line. */
export function readEventLog(path: string): EventLog {
  let header: EventLogHeader | undefined;
  const records: EventLogRecord[] = [];
  const lines = readFileSync(path, 'utf8').split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `${path}:${i + 1}`;
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(line) as Record<string, unknown>;
    } catch (err) {
      throw new EventLogError(`${where}: not JSON: ${(err as Error).message}`);
    }
    if (parsed === null || typeof parsed !== 'object') throw new EventLogError(`${where}: want a JSON object`);
    if (parsed['type'] === 'start') {
      if (header || records.length > 0) throw new EventLogError(`${where}: a start record after the first line`);
      if (parsed['version'] !== 2 && parsed['version'] !== 3) throw new EventLogError(`${where}: log version ${String(parsed['version'])}: this meshd reads versions 2 and 3`);
      header = parsed as unknown as EventLogHeader;
      return;
    }
    if (parsed['type'] === undefined && 'inputs' in parsed) {
      checkInputs(parsed['inputs'], where);
      records.push({ type: 'inputs', inputs: parsed['inputs'] as ModelInput[], seq: records.length + 1, at: 0 });
      return;
    }
    if (!TYPES.has(parsed['type'] as string)) throw new EventLogError(`${where}: type: want start, inputs, publish, connect, request, push, disconnect or overflow`);
    if (typeof parsed['at'] !== 'number' || !Number.isFinite(parsed['at'])) throw new EventLogError(`${where}: at: want a number of milliseconds`);
    if (records.length > 0 && parsed['at'] < records[records.length - 1]!.at) throw new EventLogError(`${where}: at ${parsed['at']} goes back in time`);
    if (parsed['type'] === 'inputs') checkInputs(parsed['inputs'], where);
    if (['connect', 'request', 'push', 'disconnect'].includes(parsed['type'] as string) && typeof parsed['connection'] !== 'string') {
      throw new EventLogError(`${where}: connection: want a string`);
    }
    if (parsed['type'] === 'publish' && !Number.isInteger(parsed['token'])) throw new EventLogError(`${where}: token: want a whole number`);
    if (parsed['type'] === 'push') checkPush(parsed, where);
    records.push(parsed as unknown as EventLogRecord);
  });
  return { header, records };
}

/** Replays the model inputs of a recorded log as an Observable of batches, in order, then completes. */
export function replayEventLog(path: string): Observable<readonly ModelInput[]> {
  return new Observable((subscriber) => {
    for (const r of readEventLog(path).records) {
      if (subscriber.closed) return;
      if (r.type === 'inputs') subscriber.next(r.inputs);
    }
    subscriber.complete();
  });
}
