import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../clock/index.js';
import { EventLogError, EventLogRecorder, readEventLog } from './event-log.js';
import { MeshModel, type ModelInput } from './mesh-model.js';

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

describe('event log', () => {
  let dir = '';
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'event-log-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('given a recorded endpoint shard input should read it back with its time and fold it into the same endpoints', async () => {
    const path = join(dir, 'log.jsonl');
    const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    clock.advanceSync(1000);
    const rec = new EventLogRecorder(path, { seed: 'x' }, { clock });
    clock.advanceSync(250);
    rec.record({ type: 'inputs', inputs: batch });
    await rec.close();
    const log = readEventLog(path);
    assert.deepEqual(log.header, { type: 'start', version: 3, wallStart: Date.parse('2030-01-01T00:00:01Z'), meta: { seed: 'x' } });
    assert.deepEqual(log.records, [{ type: 'inputs', inputs: batch, seq: 1, at: 250 }]);
    const m = new MeshModel({ domain: 'cluster.local', drainingLabel: '', debounceAfter: 0, debounceMax: 0, enableEdsDebounce: true });
    m.apply(log.records[0]!.type === 'inputs' ? log.records[0].inputs : []);
    assert.deepEqual(m.endpoints.instances(host), batch[0]!.kind === 'endpoints' ? batch[0]!.instances : []);
  });

  it('given a full buffer should drop records without blocking, report it once and mark the loss in the file', async () => {
    const path = join(dir, 'log.jsonl');
    const overflows: number[] = [];
    const rec = new EventLogRecorder(path, {}, { maxBufferedBytes: 1, onOverflow: (n) => overflows.push(n) });
    // NOTE: the header is still buffered (nothing was flushed: no turn of the event loop), so the buffer is full.
    for (let i = 0; i < 5; i++) rec.record({ type: 'disconnect', connection: `c${i}` });
    assert.equal(rec.dropped, 5);
    assert.deepEqual(overflows, [1], 'reported once per overflow');
    await rec.close();
    const log = readEventLog(path);
    assert.deepEqual(log.records.map((r) => [r.type, r.type === 'overflow' ? r.dropped : undefined]), [['overflow', 5]]);
    assert.match(readFileSync(path, 'utf8'), /"type":"overflow","dropped":5/);
  });

  const bad = [
    { name: 'given a line that is not JSON should name the file and line', text: '{"type":"start","version":2,"wallStart":0,"meta":{}}\nnope\n', want: /log\.jsonl:2: not JSON/ },
    { name: 'given an unknown record type should say which types are known', text: '{"type":"start","version":2,"wallStart":0,"meta":{}}\n{"type":"x","at":0,"seq":1}\n', want: /:2: type: want start, inputs/ },
    { name: 'given a time that goes back should refuse it', text: '{"type":"disconnect","connection":"a","at":5,"seq":1}\n{"type":"disconnect","connection":"b","at":4,"seq":2}\n', want: /:2: at 4 goes back in time/ },
    { name: 'given an input of an unknown kind should name it', text: '{"type":"inputs","at":0,"seq":1,"inputs":[{"kind":"pods"}]}\n', want: /:1: inputs\[0\]\.kind/ },
    { name: 'given a push record without its reasons should name the field', text: '{"type":"push","connection":"a","token":1,"full":true,"configs":[],"at":0,"seq":1}\n', want: /:1: reasons: want an object/ },
    { name: 'given a push record with a config that is not a key should name the field', text: '{"type":"push","connection":"a","token":1,"full":true,"reasons":{"config":1},"configs":["VirtualService/a/b"],"at":0,"seq":1}\n', want: /:1: configs: want a list of \{kind, namespace, name\}/ },
    { name: 'given a publish record without a whole token should name the field', text: '{"type":"publish","token":"1","at":0,"seq":1}\n', want: /:1: token: want a whole number/ },
    { name: 'given a log of another version should refuse it', text: '{"type":"start","version":4,"wallStart":0,"meta":{}}\n', want: /log version 4: this meshd reads versions 2 and 3/ },
  ];
  for (const c of bad) {
    it(c.name, () => {
      const path = join(dir, 'log.jsonl');
      writeFileSync(path, c.text);
      assert.throws(() => readEventLog(path), (e: unknown) => e instanceof EventLogError && c.want.test(e.message));
    });
  }
});
