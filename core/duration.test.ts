import assert from 'node:assert/strict';
import { DurationError, formatDuration, MAX_DURATION_MS, parseDuration } from './duration.js';

describe('duration', () => {
  const cases: Array<[string, number, string]> = [
    ['0s', 0, '0s'],
    ['0', 0, '0s'],
    ['100ms', 100, '100ms'],
    ['30s', 30_000, '30s'],
    ['5m0s', 300_000, '5m0s'],
    ['5m', 300_000, '5m0s'],
    ['1m30s', 90_000, '1m30s'],
    ['1h0m0s', 3_600_000, '1h0m0s'],
    ['87600h0m0s', 87600 * 3_600_000, '87600h0m0s'],
    ['1.5s', 1500, '1.5s'],
    ['500us', 0.5, '500µs'],
    ['2562047h47m16.854775807s', MAX_DURATION_MS, '2562047h47m16.854775807s'],
  ];
  for (const [text, ms, formatted] of cases) {
    it(`given ${text} should parse to ${ms} ms and format as ${formatted}`, () => {
      assert.equal(parseDuration(text), ms);
      assert.equal(formatDuration(ms), formatted);
    });
  }
  for (const bad of ['', '10', 'abc', '5 m', '1x', 's']) {
    it(`given ${JSON.stringify(bad)} should throw naming the value`, () => {
      assert.throws(() => parseDuration(bad), (e: unknown) => e instanceof DurationError && e.message.includes(`"${bad}"`));
    });
  }
  it('given a negative duration should keep the sign', () => {
    assert.equal(parseDuration('-1.5h'), -5_400_000);
    assert.equal(formatDuration(-5_400_000), '-1h30m0s');
  });
});
