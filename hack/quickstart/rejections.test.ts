import assert from 'node:assert/strict';
import { formatRejections } from './rejections.js';

describe('quick start rejections', () => {
  it('given a rejected edit with a last good version should name the file, object and reason, and say the last good version is served', () => {
    const lines = formatRejections([
      { object: 'VirtualService quickstart/echo', location: 'virtual-service.yaml document 1', reason: 'spec.http[0].route: total destination weight = 0', since: '2026-11-25T12:00:00.000Z', served: 'virtual-service.yaml document 1 (version 0123456789abcdef)' },
      { object: 'unknown', location: 'scratch.yaml', reason: 'a FIFO, not a regular file: not read', since: '2026-11-25T12:00:00.000Z', served: null },
    ]);
    assert.deepEqual(lines, [
      'rejected: the edit of virtual-service.yaml (VirtualService quickstart/echo): spec.http[0].route: total destination weight = 0; the last good version is still served',
      'rejected: the edit of scratch.yaml: a FIFO, not a regular file: not read; nothing of it is served',
    ]);
  });
});
