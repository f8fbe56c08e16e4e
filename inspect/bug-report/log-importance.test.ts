import assert from 'node:assert/strict';
import { logStats, parseLogLine, rankLogs } from './log-importance.js';

describe('bug-report log importance', () => {
  const lines: { name: string; line: string; want: ReturnType<typeof parseLogLine> }[] = [
    { name: 'given a console line behind the API server timestamp should read its level and text', line: '2026-06-01T00:00:00.1Z 2026-06-01T00:00:00.000000Z\terror\tads\tpush failed\tproxy=a', want: { level: 'error', text: 'ads\tpush failed\tproxy=a' } },
    { name: 'given a JSON record should read level and msg', line: '{"level":"fatal","time":"x","msg":"boom"}', want: { level: 'fatal', text: 'boom' } },
    { name: 'given an Envoy line should map warning to warn', line: '[2026-06-01 00:00:00.000][12][warning][config] slow config', want: { level: 'warn', text: 'slow config' } },
    { name: 'given an Envoy critical line with its source should count it as fatal', line: '[2026-06-01 00:00:00.000][12][critical][main] [source/server/server.cc:90] out of memory', want: { level: 'fatal', text: 'out of memory' } },
    { name: 'given an info line should say it is no error', line: '2026-06-01T00:00:00.000000Z\tinfo\tready', want: { level: 'other', text: 'ready' } },
    { name: 'given free text (a stack line) should skip it', line: '    at foo (bar.js:1:2)', want: undefined },
    { name: 'given broken JSON should skip it', line: '{"level":', want: undefined },
  ];
  for (const c of lines) it(c.name, () => assert.deepEqual(parseLogLine(c.line), c.want));

  const log = [
    '2026-06-01T00:00:00.000000Z\terror\tupstream reset',
    '2026-06-01T00:00:00.000000Z\terror\tupstream reset',
    '2026-06-01T00:00:00.000000Z\twarn\tpanic: nil map',
    '{"level":"fatal","msg":"cannot bind 15001"}',
    '2026-06-01T00:00:00.000000Z\tinfo\tpanic: is only info',
  ].join('\n');

  it('given no globs should score 1000 per fatal, 100 per error and 10 per warning', () => {
    assert.deepEqual(logStats(log, { criticalErrs: [], ignoreErrs: [] }), { fatals: 1, errors: 2, warnings: 1, importance: 1210, criticalMatches: [] });
  });

  it('given --ignore-errs should not count the matching lines', () => {
    assert.deepEqual(logStats(log, { criticalErrs: [], ignoreErrs: ['upstream*', 'cannot bind *'] }), { fatals: 0, errors: 0, warnings: 1, importance: 10, criticalMatches: [] });
  });

  it('given --critical-errs should name the globs that matched error lines only (not info)', () => {
    const s = logStats(log, { criticalErrs: ['panic*', 'nothing*'], ignoreErrs: [] });
    assert.deepEqual(s.criticalMatches, ['panic*']);
    assert.equal(logStats('2026-06-01T00:00:00.000000Z\tinfo\tpanic: x', { criticalErrs: ['panic*'], ignoreErrs: [] }).criticalMatches.length, 0);
  });

  it('given a line both ignored and critical should let ignoring win (it is not counted at all)', () => {
    assert.deepEqual(logStats(log, { criticalErrs: ['panic*'], ignoreErrs: ['panic*'] }).criticalMatches, []);
  });

  it('given several logs should rank critical first, then by score, then by path', () => {
    const ranked = rankLogs(
      [
        { path: 'logs/b', content: '2026-06-01T00:00:00.000000Z\terror\tx' },
        { path: 'logs/a', content: '2026-06-01T00:00:00.000000Z\terror\tx' },
        { path: 'logs/c', content: '2026-06-01T00:00:00.000000Z\twarn\tpanic: y' },
        { path: 'logs/d', content: '{"level":"fatal","msg":"z"}' },
      ],
      { criticalErrs: ['panic*'], ignoreErrs: [] },
    );
    assert.deepEqual(ranked.map((r) => r.path), ['logs/c', 'logs/d', 'logs/a', 'logs/b']);
  });
});
