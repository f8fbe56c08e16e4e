import assert from 'node:assert/strict';
import { bar, formatTraffic, trafficRows } from './traffic-table.js';

describe('quick start traffic table', () => {
  const snap = {
    windowMs: 2000,
    total: 200,
    byVersion: new Map([['v2', 40], ['v1', 150]]),
    errors: new Map([['UNAVAILABLE', 10]]),
    lastError: 'no healthy upstream',
  };
  it('given versions and errors should list versions by name, then errors, with shares of all calls', () => {
    assert.deepEqual(
      trafficRows(snap).map((r) => [r.label, r.calls, r.share]),
      [['v1', 150, 0.75], ['v2', 40, 0.2], ['error UNAVAILABLE', 10, 0.05]],
    );
  });
  it('given a share should draw a bar of proportional length', () => {
    assert.equal(bar(0.5), '█'.repeat(12) + '░'.repeat(12));
    assert.equal(bar(0), '░'.repeat(24));
  });
  it('given errors should print the last error under the table', () => {
    const text = formatTraffic(snap, 'echo:50051').join('\n');
    assert.match(text, /v1\s+150\s+75\.0%/);
    assert.match(text, /last error: no healthy upstream/);
  });
  it('given no calls should say so', () => {
    const text = formatTraffic({ windowMs: 2000, total: 0, byVersion: new Map(), errors: new Map() }, 'x').join('\n');
    assert.match(text, /no calls answered yet/);
  });
});
