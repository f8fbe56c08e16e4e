/**
 * {@link parseConfigYaml} off the event loop: one worker thread parses the files it is given, one at a
 * time in the order given. The worker's heap is capped, and a parse that takes too long is cut off: in
 * both cases that file is refused (named by the caller) and a fresh worker takes the next one, so no
 * file can stall or crash the process that asked.
 */
import { Worker } from 'node:worker_threads';
import type { ParsedYaml, ParseOptions } from './parse-config-yaml.js';
import { DEFAULT_YAML_LIMITS, type YamlLimits } from './yaml-limits.js';

/** Options of {@link YamlWorkerParser}. */
export interface YamlWorkerParserOptions {
  /** Default {@link DEFAULT_YAML_LIMITS}. */
  readonly limits?: YamlLimits;
  /** A parse running longer is cut off and its file refused. Default 30,000 ms. */
  readonly timeoutMs?: number;
  /** The worker's old-generation heap cap, in MiB. Default 1,024. */
  readonly maxHeapMb?: number;
}

interface Job {
  readonly bytes: Uint8Array;
  readonly options: ParseOptions;
  readonly resolve: (r: ParsedYaml) => void;
}

/** See the file comment. `close()` ends the worker; parses asked for after it are refused. */
export class YamlWorkerParser {
  readonly #limits: YamlLimits;
  readonly #timeoutMs: number;
  readonly #maxHeapMb: number;
  readonly #queue: Job[] = [];
  #worker: Worker | undefined;
  #busy = false;
  #closed = false;
  #nextId = 1;

  constructor(opts: YamlWorkerParserOptions = {}) {
    this.#limits = opts.limits ?? DEFAULT_YAML_LIMITS;
    this.#timeoutMs = opts.timeoutMs ?? 30_000;
    this.#maxHeapMb = opts.maxHeapMb ?? 1024;
  }

  /** The limits each parse applies. */
  get limits(): YamlLimits {
    return this.#limits;
  }

  /** Parses (and with `options.validate` validates) one file's bytes; never rejects (a failure is a refused file). */
  parse(bytes: Uint8Array, options: ParseOptions = {}): Promise<ParsedYaml> {
    if (this.#closed) return Promise.resolve({ ok: false, error: 'the YAML parser is closed' });
    // NOTE: the size limit is checked here too, so an oversized file is not even copied to the worker.
    if (bytes.byteLength > this.#limits.maxFileBytes) {
      return Promise.resolve({ ok: false, error: `file is ${bytes.byteLength} bytes, more than ${this.#limits.maxFileBytes} (limit maxFileBytes)` });
    }
    return new Promise((resolve) => {
      this.#queue.push({ bytes, options, resolve });
      this.#pump();
    });
  }

  /** Ends the worker; waiting parses are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.resolve({ ok: false, error: 'the YAML parser is closed' });
    const w = this.#worker;
    this.#worker = undefined;
    if (w) await w.terminate();
  }

  #spawn(): Worker {
    const w = new Worker(new URL('./yaml-parse-worker.js', import.meta.url), {
      workerData: { limits: this.#limits },
      resourceLimits: { maxOldGenerationSizeMb: this.#maxHeapMb },
    });
    w.unref();
    return w;
  }

  #pump(): void {
    if (this.#busy || this.#closed) return;
    const job = this.#queue.shift();
    if (!job) return;
    this.#busy = true;
    const worker = (this.#worker ??= this.#spawn());
    const id = this.#nextId++;
    // NOTE: ref'd while a parse is running, so a caller awaiting it keeps the process alive; idle, it does not.
    worker.ref();
    let done = false;
    const finish = (result: ParsedYaml, restart: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      if (restart) {
        if (this.#worker === worker) this.#worker = undefined;
        void worker.terminate();
      } else worker.unref();
      this.#busy = false;
      job.resolve(result);
      this.#pump();
    };
    const onMessage = (m: { id: number; result: ParsedYaml }): void => {
      if (m.id === id) finish(m.result, false);
    };
    const onError = (e: Error): void => {
      const oom = (e as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
      finish({ ok: false, error: oom ? `parsing needed more than ${this.#maxHeapMb} MiB of memory` : `the YAML parser failed: ${e.message}` }, true);
    };
    const onExit = (code: number): void => finish({ ok: false, error: `the YAML parser stopped (exit code ${code})` }, true);
    const timer = setTimeout(() => finish({ ok: false, error: `parsing took longer than ${this.#timeoutMs} ms` }, true), this.#timeoutMs);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage({ id, bytes: job.bytes, options: job.options });
  }
}
