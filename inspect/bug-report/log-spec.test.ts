import assert from 'node:assert/strict';
import { LogSpecError, logSelected, namespaceExcluded, parseLogSpec, type LogTarget } from './log-spec.js';
import { cutLogAtEnd, resolveTimeRange, TimeRangeError } from './time-range.js';

const target: LogTarget = {
  namespace: 'bookinfo',
  deployment: 'reviews-v1',
  pod: 'reviews-v1-6b7f-x2x',
  labels: { app: 'reviews', version: 'v1' },
  annotations: { 'sidecar.mesh.io/status': '{}' },
  container: 'mesh-proxy',
};

describe('bug-report include/exclude specs', () => {
  const cases: { name: string; include: string[]; exclude: string[]; want: boolean }[] = [
    { name: 'given no specs should keep the log', include: [], exclude: [], want: true },
    { name: 'given an include of its namespace should keep it', include: ['bookinfo'], exclude: [], want: true },
    { name: 'given an include of another namespace should drop it', include: ['other'], exclude: [], want: false },
    { name: 'given namespaces OR-ed within a part should keep it', include: ['other,bookinfo'], exclude: [], want: true },
    { name: 'given a deployment glob should keep it', include: ['bookinfo/reviews-*'], exclude: [], want: true },
    { name: 'given an empty part should match anything there', include: ['//reviews-v1-*'], exclude: [], want: true },
    { name: 'given a label with a glob value should keep it', include: ['///app=rev*'], exclude: [], want: true },
    { name: 'given a label that differs should drop it', include: ['///app=ratings'], exclude: [], want: false },
    { name: 'given labels OR-ed should keep it when one matches', include: ['///app=ratings,version=v1'], exclude: [], want: true },
    { name: 'given an annotation that exists should keep it', include: ['////sidecar.mesh.io/status=*'], exclude: [], want: true },
    { name: 'given a container part of another container should drop it', include: ['/////app'], exclude: [], want: false },
    { name: 'given two includes should keep it when either matches', include: ['other', 'bookinfo//reviews*'], exclude: [], want: true },
    { name: 'given an exclude matching it should drop it after the include', include: ['bookinfo'], exclude: ['bookinfo/reviews-v1'], want: false },
    { name: 'given an exclude of another deployment should keep it', include: [], exclude: ['bookinfo/ratings-v1'], want: true },
    { name: 'given the default excludes should keep it', include: [], exclude: ['orch-system', 'orch-public', 'orch-node-lease', 'local-path-storage'], want: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(logSelected(c.include.map((s) => parseLogSpec(s, 'include')), c.exclude.map((s) => parseLogSpec(s, 'exclude')), target), c.want);
    });
  }

  const bad: { spec: string; error: RegExp }[] = [
    { spec: 'a/b/c/d=1/e=2/f/g', error: /--include "a\/b\/c\/d=1\/e=2\/f\/g": 7 parts; the form is ns\/dep\/pod\/labels\/annotations\/container/ },
    { spec: '///app', error: /--include "\/\/\/app": label "app" is not <key>=<value>/ },
    { spec: '///ap*=x', error: /label key "ap\*" cannot be a glob/ },
    { spec: '////=x', error: /annotation "=x" is not <key>=<value>/ },
  ];
  for (const b of bad) {
    it(`given the spec ${b.spec} should refuse it naming the flag and the part`, () => {
      assert.throws(() => parseLogSpec(b.spec, 'include'), (e: unknown) => e instanceof LogSpecError && b.error.test(e.message));
    });
  }

  it('given an exclude naming only namespaces should leave those namespaces out entirely, and not for a narrower exclude', () => {
    const ex = ['orch-*', 'bookinfo/reviews-v1'].map((s) => parseLogSpec(s, 'exclude'));
    assert.equal(namespaceExcluded(ex, 'orch-system'), true);
    assert.equal(namespaceExcluded(ex, 'bookinfo'), false);
  });
});

describe('bug-report time range', () => {
  const now = new Date('2026-11-25T12:00:00Z');
  it('given --duration and --start-time together should refuse them (the spec says they are exclusive)', () => {
    assert.throws(() => resolveTimeRange({ startTime: '2026-11-25T10:00:00Z', endTime: '', durationMs: 60_000 }, now), (e: unknown) => e instanceof TimeRangeError && /--duration and --start-time are mutually exclusive/.test(e.message));
  });
  const cases: { name: string; flags: { startTime: string; endTime: string; durationMs: number }; want: { start?: string; end: string } }[] = [
    { name: 'given nothing should run from the beginning to now', flags: { startTime: '', endTime: '', durationMs: 0 }, want: { end: '2026-11-25T12:00:00.000Z' } },
    { name: 'given a duration should count back from now', flags: { startTime: '', endTime: '', durationMs: 3_600_000 }, want: { start: '2026-11-25T11:00:00.000Z', end: '2026-11-25T12:00:00.000Z' } },
    { name: 'given a duration and an end should count back from the end', flags: { startTime: '', endTime: '2026-11-24T00:00:00Z', durationMs: 60_000 }, want: { start: '2026-11-23T23:59:00.000Z', end: '2026-11-24T00:00:00.000Z' } },
    { name: 'given a start with an offset should read it', flags: { startTime: '2026-11-25T10:00:00+01:00', endTime: '', durationMs: 0 }, want: { start: '2026-11-25T09:00:00.000Z', end: '2026-11-25T12:00:00.000Z' } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = resolveTimeRange(c.flags, now);
      assert.deepEqual({ ...(r.start ? { start: r.start.toISOString() } : {}), end: r.end.toISOString() }, c.want);
    });
  }
  for (const [flags, error] of [
    [{ startTime: 'yesterday', endTime: '', durationMs: 0 }, /--start-time "yesterday": not an RFC 3339 time/],
    [{ startTime: '', endTime: '2026-13-99', durationMs: 0 }, /--end-time "2026-13-99": not an RFC 3339 time/],
    [{ startTime: '2026-11-26T00:00:00Z', endTime: '', durationMs: 0 }, /--start-time 2026-11-26T00:00:00.000Z is after the end time/],
  ] as const) {
    it(`given ${JSON.stringify(flags)} should refuse it naming the flag`, () => {
      assert.throws(() => resolveTimeRange(flags, now), (e: unknown) => e instanceof TimeRangeError && error.test(e.message));
    });
  }
  it('given a log with timestamps should keep the lines up to the end, continuation lines with theirs', () => {
    const log = ['2026-11-25T09:00:00Z early', '2026-11-25T11:00:00Z kept', '  at continuation', '2026-11-25T13:00:00Z late', '  late continuation'].join('\n');
    assert.equal(cutLogAtEnd(log, { start: new Date('2026-11-25T10:00:00Z'), end: now }), '2026-11-25T11:00:00Z kept\n  at continuation');
    assert.equal(cutLogAtEnd(`${log}\n`, { end: now }), '2026-11-25T09:00:00Z early\n2026-11-25T11:00:00Z kept\n  at continuation\n');
  });
});
