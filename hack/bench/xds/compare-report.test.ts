import assert from 'node:assert/strict';
import { compareRuns, comparedValues, formatComparison, ratio } from './compare-report.js';
import type { BenchResult, EditResult } from './run-bench.js';
import { summarize } from '../stats.js';
import { parseBenchArgs } from './bench-options.js';

function edit(scenario: EditResult['scenario'], samplesMs: number[], cpu: number, bytes: number, missing = 0, writeAnsweredMs = 20): EditResult {
  return {
    scenario, round: 0, marker: 'm', fullPush: scenario !== 'endpoint', convergenceMs: summarize(samplesMs), writeAnsweredMs, samplesMs, missing, arrivedIn: {},
    serverCpuSeconds: cpu, clientLoopUtilization: 0, traffic: { RDS: { bytes, responses: 1 } },
  };
}

function result(serverName: 'meshd' | 'istiod', edits: EditResult[], peakRssBytes: number, args: string[] = []): BenchResult {
  const opts = parseBenchArgs(['--reference', 'istiod', '--source', 'kube', '--quick', ...args]);
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
      fullPushP100: 300, fullPushP100Above: undefined, endpointP50: 20, endpointP99: 30, endpointP99Above: undefined,
      fullPushMaxMedianEdit: 200, endpointP99MedianEdit: 30,
      writeAnsweredP50: 20, fullPushPastFloorP100: 180, endpointPastFloorP99: -90, cpuPerFullPush: 0.2, cpuPerEndpointPush: 0.01,
      bytesPerFullPush: 2000, bytesPerEndpointPush: 100, peakRss: 200, startupAllComplete: 100,
      settleWait: undefined, settleWaitAbove: undefined, settleCpu: undefined,
    });
    const byName = Object.fromEntries(compareRuns(meshd, istiod).map((c) => [c.name, ratio(c.meshd, c.istiod)]));
    assert.equal(byName['full-push p100 (all clients have the edit)'], 300 / 900);
    assert.equal(byName['endpoint-change p99'], 30 / 300);
    assert.equal(byName['server peak RSS (VmHWM)'], 2);
    // NOTE: one slow edit sets p100 and p99 over all samples; the median edit's value is the usual one.
    assert.equal(byName['full-push p100, the median edit\'s'], 200 / 600);
    assert.equal(byName['endpoint-change p99, the median edit\'s'], 30 / 300);
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

  it('given how long each server took to go idle before the edits should show both, and a server that never did as above its wait', () => {
    const settled = { ...meshd, settle: { idle: true, waitedMs: 1000, cpuSeconds: 0.05 } };
    const busy = { ...istiod, settle: { idle: false, waitedMs: 300_000, cpuSeconds: 412 } };
    const text = formatComparison(settled, busy);
    assert.match(text, /then until the server was idle \(edits wait\)\s+1\.00 s\s+> 300\.00 s\s+< 0\.00x\s+-\n/);
    assert.match(text, /server CPU meanwhile\s+0\.05 s\s+412\.00 s\s+0\.00x/);
  });

  it('given a zero or missing value should print no ratio, and meshd above istiod on RSS should mark that target not met', () => {
    assert.equal(ratio(1, 0), undefined);
    assert.equal(ratio(undefined, 1), undefined);
    assert.match(formatComparison(meshd, istiod), /server peak RSS \(VmHWM\)\s+200 B\s+100 B\s+2\.00x\s+<= 1x \(NOT met\)/);
  });

  it('given the API server\'s answers should take each edit\'s own floor (answer + the shared debounce) off its clients\' times', () => {
    const slowAnswer = result('meshd', [edit('vs-edit', [400, 500], 0.1, 1, 0, 300), edit('new-service', [250, 260], 0.1, 1, 0, 10), edit('endpoint', [200, 210], 0.01, 1, 0, 60)], 1);
    const v = comparedValues(slowAnswer);
    assert.equal(v['fullPushP100'], 500);
    assert.equal(v['fullPushPastFloorP100'], 150, 'new-service: 260 - (10 + 100) beats vs-edit: 500 - (300 + 100)');
    assert.equal(v['endpointPastFloorP99'], 50);
    assert.equal(v['writeAnsweredP50'], 60);
    const byName = Object.fromEntries(compareRuns(slowAnswer, istiod).map((c) => [c.name, ratio(c.meshd, c.istiod)]));
    assert.equal(byName['full-push p100 past the floor'], 150 / 780);
    assert.match(formatComparison(slowAnswer, istiod), /"past the floor": .* plus the 100 ms push debounce both servers run with/);
  });

  it('given another debounce or no EDS debounce in --server-env should use it for the floor, and give no floor with files as the source', () => {
    const edits = [edit('vs-edit', [400], 0.1, 1, 0, 30), edit('endpoint', [200], 0.01, 1, 0, 30)];
    const tenMs = comparedValues(result('meshd', edits, 1, ['--server-env', 'PILOT_DEBOUNCE_AFTER=10ms', '--server-env', 'PILOT_ENABLE_EDS_DEBOUNCE=0']));
    assert.deepEqual([tenMs['fullPushPastFloorP100'], tenMs['endpointPastFloorP99']], [360, 170]);
    const files = result('meshd', edits, 1);
    const onFiles = comparedValues({ ...files, options: { ...files.options, source: 'files' } });
    assert.deepEqual([onFiles['writeAnsweredP50'], onFiles['fullPushPastFloorP100'], onFiles['endpointPastFloorP99']], [undefined, undefined, undefined]);
    const fromBefore = comparedValues(result('meshd', [{ ...edits[0]!, writeAnsweredMs: undefined }], 1));
    assert.equal(fromBefore['fullPushPastFloorP100'], undefined, 'a run that did not record the answer has no floor');
  });
});
