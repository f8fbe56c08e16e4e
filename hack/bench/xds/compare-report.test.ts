import assert from 'node:assert/strict';
import { compareRuns, comparedValues, formatComparison, ratio } from './compare-report.js';
import type { BenchResult, EditResult } from './run-bench.js';
import { summarize } from '../stats.js';
import { parseBenchArgs } from './bench-options.js';

function edit(scenario: EditResult['scenario'], samplesMs: number[], cpu: number, bytes: number, missing = 0): EditResult {
  return {
    scenario, round: 0, marker: 'm', fullPush: scenario !== 'endpoint', convergenceMs: summarize(samplesMs), samplesMs, missing, arrivedIn: {},
    serverCpuSeconds: cpu, clientLoopUtilization: 0, traffic: { RDS: { bytes, responses: 1 } },
  };
}

function result(serverName: 'meshd' | 'istiod', edits: EditResult[], peakRssBytes: number): BenchResult {
  const opts = parseBenchArgs(['--reference', 'istiod', '--source', 'kube', '--quick']);
  return {
    startedAt: '', serverName, options: { ...opts, out: undefined } as BenchResult['options'], serverCommand: '', runId: 'r', configDocuments: 0, serverListenMs: 1,
    startup: { allCompleteMs: 100, complete: 1, connectMs: summarize([]), completeMs: summarize([]), serverCpuSeconds: 0, clientLoopUtilization: 0, traffic: {} },
    edits, server: { cpuSecondsTotal: 1, peakRssBytes, peakTreeRssSampledBytes: 0 }, streamsReopened: 0, refused: 0, endReasons: {}, machine: { cpus: 2, loadAverage: [] },
  };
}

describe('bench:xds meshd vs istiod comparison', () => {
  const meshd = result('meshd', [edit('vs-edit', [100, 200], 0.1, 1000), edit('new-subset', [150, 300], 0.3, 3000), edit('endpoint', [10, 20, 30], 0.01, 100)], 200);
  const istiod = result('istiod', [edit('vs-edit', [500, 900], 1, 8000), edit('new-subset', [400, 600], 1, 8000), edit('endpoint', [100, 200, 300], 0.1, 400)], 100);

  it('given two runs should take p100 over every full push, mean CPU and bytes per push, and peak RSS', () => {
    assert.deepEqual(comparedValues(meshd), {
      fullPushP100: 300, fullPushP100Above: undefined, endpointP50: 20, endpointP99: 30, endpointP99Above: undefined, cpuPerFullPush: 0.2, cpuPerEndpointPush: 0.01,
      bytesPerFullPush: 2000, bytesPerEndpointPush: 100, peakRss: 200, startupAllComplete: 100,
    });
    const byName = Object.fromEntries(compareRuns(meshd, istiod).map((c) => [c.name, ratio(c.meshd, c.istiod)]));
    assert.equal(byName['full-push p100 (all clients have the edit)'], 300 / 900);
    assert.equal(byName['endpoint-change p99'], 30 / 300);
    assert.equal(byName['server peak RSS (VmHWM)'], 2);
  });

  it('given a full push some istiod client missed should leave its p100 unknown but above the wait, and bound the ratio from above', () => {
    const missed = result('istiod', [edit('vs-edit', [100], 1, 1, 1)], 1);
    const waited = missed.options.convergeTimeoutMs;
    assert.deepEqual([comparedValues(missed).fullPushP100, comparedValues(missed).fullPushP100Above], [undefined, waited]);
    const bound = (300 / waited).toFixed(2);
    assert.match(formatComparison(meshd, missed), new RegExp(`full-push p100 \\(all clients have the edit\\)\\s+300 ms\\s+> \\S+ m?s\\s+< ${bound}x\\s+<= 0.5x \\(met\\)`));
  });

  it('given a full push some meshd client missed should bound the ratio from below, and say the target is not met only when the bound shows it', () => {
    const missed = result('meshd', [edit('vs-edit', [100], 1, 1, 1)], 1);
    const waited = missed.options.convergeTimeoutMs;
    const slowIstiod = result('istiod', [edit('vs-edit', [100, 4 * waited], 1, 1)], 1);
    const fastIstiod = result('istiod', [edit('vs-edit', [100, waited / 4], 1, 1)], 1);
    assert.match(formatComparison(missed, fastIstiod), /full-push p100 \(all clients have the edit\)\s+> \S+ m?s\s+\S+ m?s\s+> 4\.00x\s+<= 0.5x \(NOT met\)/);
    assert.match(formatComparison(missed, slowIstiod), /> 0\.25x\s+<= 0.5x\n/, 'a lower bound under the target decides nothing');
  });

  it('given a zero or missing value should print no ratio, and meshd above istiod on RSS should mark that target not met', () => {
    assert.equal(ratio(1, 0), undefined);
    assert.equal(ratio(undefined, 1), undefined);
    assert.match(formatComparison(meshd, istiod), /server peak RSS \(VmHWM\)\s+200 B\s+100 B\s+2\.00x\s+<= 1x \(NOT met\)/);
  });
});
