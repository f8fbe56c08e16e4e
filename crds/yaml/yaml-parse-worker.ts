/**
 * The worker-thread side of {@link YamlWorkerParser}: parses each file it is sent with
 * {@link parseConfigYaml} and posts the result back. Started by yaml-worker-parser.ts only.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { parseConfigYaml, type ParseOptions } from './parse-config-yaml.js';
import type { YamlLimits } from './yaml-limits.js';

/** A request: one file's bytes, tagged with an id the answer repeats. */
export interface ParseRequest {
  readonly id: number;
  readonly bytes: Uint8Array;
  readonly options: ParseOptions;
}

const limits = (workerData as { limits: YamlLimits }).limits;
parentPort?.on('message', (req: ParseRequest) => {
  parentPort?.postMessage({ id: req.id, result: parseConfigYaml(req.bytes, limits, req.options) });
});
