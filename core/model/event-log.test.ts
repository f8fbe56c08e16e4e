import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLogRecorder, readEventLog } from './event-log.js';
import { MeshModel, type ModelInput } from './mesh-model.js';

describe('event log', () => {
  let dir = '';
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'event-log-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('given a recorded endpoint shard input should read it back and fold it into the same endpoints', () => {
    const host = 'web.a.svc.cluster.local';
    const batch: ModelInput[] = [
      {
        kind: 'endpoints',
        hostname: host,
        shard: 'Orchestrator/c1',
        instances: [
          { hostname: host, servicePort: 80, servicePortName: 'grpc', address: '10.1.0.1', port: 8080, labels: { app: 'web' }, locality: { region: '', zone: 'z1', subZone: '' }, weight: 1, serviceAccount: 'sa', network: '', health: 'HEALTHY', source: 'ServiceEntry/a/orch:web' },
        ],
      },
    ];
    const path = join(dir, 'log.jsonl');
    new EventLogRecorder(path).record(batch);
    const read = readEventLog(path);
    assert.deepEqual(read, [batch]);
    const m = new MeshModel({ domain: 'cluster.local', drainingLabel: '', debounceAfter: 0, debounceMax: 0, enableEdsDebounce: true });
    m.apply(read[0]!);
    assert.deepEqual(m.endpoints.instances(host), batch[0]!.kind === 'endpoints' ? batch[0]!.instances : []);
  });
});
