import assert from 'node:assert/strict';
import { Subject } from 'rxjs';
import { createMetrics } from '../metrics/index.js';
import { ManualClock } from '../clock/index.js';
import type { Config, ConfigEvent } from './config.js';
import { MeshModel, type ModelInput } from './mesh-model.js';
import { modelMetricsFrom } from './model-metrics.js';
import { mergePushRequests, type PushRequest } from './push-request.js';
import type { ServiceInstance } from './service.js';

function cfg(kind: string, name: string, spec: Record<string, unknown>, namespace = 'qs'): Config {
  return { apiVersion: 'networking.mesh.io/v1', kind, metadata: { name, namespace }, spec };
}

function ev(c: Config, type: ConfigEvent['type'] = 'added'): ModelInput {
  return { kind: 'config', event: { type, key: { kind: c.kind, namespace: c.metadata.namespace, name: c.metadata.name }, object: c, resourceVersion: '1' } };
}

const SE = cfg('ServiceEntry', 'echo', {
  hosts: ['echo.qs.svc.cluster.local'],
  location: 'MESH_INTERNAL',
  ports: [{ number: 80, name: 'grpc', protocol: 'GRPC' }],
  workloadSelector: { labels: { app: 'echo' } },
});
const WE = (address: string, labels: Record<string, string> = { app: 'echo' }): Config => cfg('WorkloadEntry', 'w1', { address, labels });
const VS = cfg('VirtualService', 'echo', { hosts: ['echo'], http: [{ route: [{ destination: { host: 'echo' } }] }] });

function model(): MeshModel {
  return new MeshModel({ domain: 'cluster.local', drainingLabel: 'mesh.io/draining', debounceAfter: 0, debounceMax: 0, enableEdsDebounce: true });
}

function summary(r: PushRequest | undefined): string {
  if (!r) return 'none';
  return `${r.full ? 'full' : 'eds'} ${[...r.reasons.keys()].sort().join(',')} ${r.configsUpdated.strings().sort().join(' ')}`;
}

describe('MeshModel', () => {
  const cases: { name: string; before: ModelInput[]; change: ModelInput[]; want: string }[] = [
    { name: 'given a new VirtualService should ask for a full config push naming it', before: [], change: [ev(VS)], want: 'full config VirtualService/qs/echo' },
    {
      name: 'given a new ServiceEntry should ask for a full service push naming the host and the config',
      before: [],
      change: [ev(SE)],
      want: 'full service ServiceEntry/qs/echo ServiceEntry/qs/echo.qs.svc.cluster.local',
    },
    {
      name: 'given a moved WorkloadEntry should ask for an EDS-only push of its service',
      before: [ev(SE), ev(WE('10.0.0.1'))],
      change: [ev(WE('10.0.0.2'), 'updated')],
      want: 'eds endpoint ServiceEntry/qs/echo.qs.svc.cluster.local',
    },
    {
      name: 'given a WorkloadEntry relabelled out of the selector should ask for an EDS push of the service it left',
      before: [ev(SE), ev(WE('10.0.0.1'))],
      change: [ev(WE('10.0.0.1', { app: 'other' }), 'updated')],
      want: 'eds endpoint ServiceEntry/qs/echo.qs.svc.cluster.local',
    },
    { name: 'given an identical update should ask for nothing', before: [ev(VS)], change: [ev(VS, 'updated')], want: 'none' },
    { name: 'given a mesh config should ask for a global push of everything', before: [], change: [{ kind: 'meshConfig', meshConfig: model().meshConfig }], want: 'full global ' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const m = model();
      m.apply(c.before);
      assert.equal(summary(m.apply(c.change)), c.want);
    });
  }

  it('given an endpoint-only change should not rebuild the PushContext but update the endpoint index', () => {
    const m = model();
    const inputs = new Subject<ModelInput[]>();
    const seen: PushRequest[] = [];
    const sub = m.pushes(inputs).subscribe((r) => seen.push(r));
    inputs.next([ev(SE), ev(WE('10.0.0.1'))]);
    const ctx = m.pushContext;
    assert.ok(Object.isFrozen(ctx), 'a published PushContext is frozen');
    inputs.next([ev(WE('10.0.0.2'), 'updated')]);
    sub.unsubscribe();
    assert.equal(seen.length, 2);
    assert.equal(seen[1]!.full, false);
    assert.equal(m.pushContext, ctx, 'the same PushContext object');
    assert.deepEqual(m.endpoints.instances('echo.qs.svc.cluster.local').map((i) => i.address), ['10.0.0.2']);
  });

  it('given a full and then an endpoint-only push should carry snapshots frozen at emission, with increasing tokens', () => {
    const m = model();
    const inputs = new Subject<ModelInput[]>();
    const seen: PushRequest[] = [];
    const sub = m.pushes(inputs).subscribe((r) => seen.push(r));
    inputs.next([ev(SE), ev(WE('10.0.0.1'))]);
    inputs.next([ev(WE('10.0.0.2'), 'updated')]);
    // Folded at once, but not yet published: the pushes keep reading what they were emitted with.
    m.apply([ev(WE('10.0.0.3'), 'updated'), ev(VS)]);
    sub.unsubscribe();
    const [full, eds] = seen.map((r) => r.snapshot!);
    assert.ok(full && eds, 'every emitted push carries a snapshot');
    assert.ok(eds.token > full.token && full.token > 0, `tokens increase (${full.token}, ${eds.token})`);
    assert.equal(eds.pushContext, full.pushContext, 'an endpoint-only push reuses the PushContext');
    assert.equal(m.snapshot, eds, 'the newest published snapshot is the last push\'s');
    const at = (s: typeof full, host = 'echo.qs.svc.cluster.local'): string[] => s.endpoints.instances(host).map((i) => i.address);
    assert.deepEqual([at(full), at(eds)], [['10.0.0.1'], ['10.0.0.2']]);
    assert.equal(eds.pushContext.virtualServiceCount, 0, 'the VirtualService folded later is not in the snapshot');
    assert.deepEqual(m.endpoints.instances('echo.qs.svc.cluster.local').map((i) => i.address), ['10.0.0.3'], 'the model itself moved on');
    assert.equal(mergePushRequests(seen[1], seen[0]!).snapshot, eds, 'a merged request reads the newer snapshot');
    assert.equal(mergePushRequests(seen[0], seen[1]!).snapshot, eds);
  });

  it('given pushes should record the pipeline metrics', async () => {
    const metrics = createMetrics('pilot-discovery', { processMetrics: false });
    const m = new MeshModel({ domain: 'cluster.local', drainingLabel: '', debounceAfter: 0, debounceMax: 0, enableEdsDebounce: true, metrics: modelMetricsFrom(metrics) });
    const inputs = new Subject<ModelInput[]>();
    const sub = m.pushes(inputs).subscribe();
    inputs.next([ev(SE), ev(WE('10.0.0.1')), ev(VS)]);
    inputs.next([ev(WE('10.0.0.2'), 'updated')]);
    sub.unsubscribe();
    const text = await metrics.text();
    assert.match(text, /^pilot_inbound_updates\{type="config"\} 4$/m);
    assert.match(text, /^pilot_inbound_updates\{type="eds"\} 1$/m);
    assert.match(text, /^pilot_push_triggers\{type="endpoint"\} 1$/m);
    assert.match(text, /^pilot_push_triggers\{type="service"\} 1$/m);
    assert.match(text, /^pilot_services 1$/m);
    assert.match(text, /^pilot_virt_services 1$/m);
    assert.match(text, /^pilot_debounce_time_count 2$/m);
    assert.match(text, /^pilot_pushcontext_init_seconds_count 2$/m, 'the constructor build and one full push; the EDS push rebuilt nothing');
  });

  it('given a service whose endpoints come and go should count it in pilot_eds_no_instances', async () => {
    const metrics = createMetrics('pilot-discovery', { processMetrics: false });
    const m = new MeshModel({ domain: 'cluster.local', drainingLabel: '', debounceAfter: 0, debounceMax: 0, enableEdsDebounce: true, metrics: modelMetricsFrom(metrics) });
    const inputs = new Subject<ModelInput[]>();
    const sub = m.pushes(inputs).subscribe();
    const gauge = async (): Promise<string | undefined> => /^pilot_eds_no_instances (\d+)$/m.exec(await metrics.text())?.[1];
    inputs.next([ev(SE)]);
    assert.equal(await gauge(), '1', 'a service with no workload');
    inputs.next([ev(WE('10.0.0.1'))]);
    assert.equal(await gauge(), '0', 'its workload arrived (an endpoint-only change)');
    inputs.next([ev(WE('10.0.0.1'), 'deleted')]);
    assert.equal(await gauge(), '1', 'its workload left');
    sub.unsubscribe();
  });

  it('given one host in two namespaces with workloads only in the younger namespace should count the host in pilot_eds_no_instances (istiod shards per host and namespace)', async () => {
    const metrics = createMetrics('pilot-discovery', { processMetrics: false });
    const m = new MeshModel({ domain: 'cluster.local', drainingLabel: '', debounceAfter: 0, debounceMax: 0, enableEdsDebounce: true, metrics: modelMetricsFrom(metrics) });
    const inputs = new Subject<ModelInput[]>();
    const sub = m.pushes(inputs).subscribe();
    const gauge = async (): Promise<string | undefined> => /^pilot_eds_no_instances (\d+)$/m.exec(await metrics.text())?.[1];
    const entry = (ns: string, created: string, endpoints: { address: string }[]): Config => {
      const c = cfg('ServiceEntry', 'api', { hosts: ['api.partner.org'], ports: [{ number: 80, name: 'http', protocol: 'HTTP' }], resolution: 'STATIC', endpoints }, ns);
      return { ...c, metadata: { ...c.metadata, creationTimestamp: created } };
    };
    inputs.next([ev(entry('ns-a', '2026-01-01T00:00:00Z', [])), ev(entry('ns-b', '2026-01-02T00:00:00Z', [{ address: '10.0.0.9' }]))]);
    assert.equal(await gauge(), '1', "ns-a's service is served, and it has no instance");
    sub.unsubscribe();
  });

  it('given DestinationRules of one namespace and host that repeat a subset should count the host in pilot_destrule_subsets', async () => {
    const metrics = createMetrics('pilot-discovery', { processMetrics: false });
    const m = new MeshModel({ domain: 'cluster.local', drainingLabel: '', debounceAfter: 0, debounceMax: 0, enableEdsDebounce: true, metrics: modelMetricsFrom(metrics) });
    const inputs = new Subject<ModelInput[]>();
    const sub = m.pushes(inputs).subscribe();
    const gauge = async (): Promise<string | undefined> => /^pilot_destrule_subsets (\d+)$/m.exec(await metrics.text())?.[1];
    const dr = (name: string, subset: string): Config => cfg('DestinationRule', name, { host: 'echo', subsets: [{ name: subset }] });
    inputs.next([ev(SE), ev(dr('a', 'v1')), ev(dr('b', 'v1'))]);
    assert.equal(await gauge(), '1');
    inputs.next([ev(dr('b', 'v2'), 'updated')]);
    assert.equal(await gauge(), '0');
    sub.unsubscribe();
  });

  for (const optimized of [true, false]) {
    it(`given MESH_ENABLE_OPTIMIZED_SERVICE_PUSH=${optimized} and a ServiceEntry update that changes no service should ${optimized ? 'not push' : 'push'}`, () => {
      const m = new MeshModel({ domain: 'cluster.local', drainingLabel: '', debounceAfter: 0, debounceMax: 0, enableEdsDebounce: true, optimizedServicePush: optimized });
      m.apply([ev(SE)]);
      const annotated = { ...SE, metadata: { ...SE.metadata, annotations: { team: 'b' } } };
      assert.equal(summary(m.apply([ev(annotated, 'updated')])), optimized ? 'none' : 'full service ServiceEntry/qs/echo');
    });
  }

  it('given a batch that fails to fold and an error hook should drop the batch and keep the pipeline running', () => {
    const errors: unknown[] = [];
    const m = new MeshModel({ domain: 'cluster.local', drainingLabel: '', debounceAfter: 0, debounceMax: 0, enableEdsDebounce: true, onError: (e) => errors.push(e) });
    const inputs = new Subject<ModelInput[]>();
    const seen: PushRequest[] = [];
    const sub = m.pushes(inputs).subscribe((r) => seen.push(r));
    const broken = { kind: 'config', event: { type: 'added', key: { kind: 'ServiceEntry', namespace: 'qs', name: 'x' }, object: { kind: 'ServiceEntry', metadata: { name: 'x', namespace: 'qs' }, spec: { hosts: ['x.qs'], ports: 'not-a-list' } }, resourceVersion: '1' } } as unknown as ModelInput;
    inputs.next([broken]);
    inputs.next([ev(VS)]);
    sub.unsubscribe();
    assert.equal(errors.length, 1);
    assert.deepEqual(seen.map(summary), ['full config VirtualService/qs/echo']);
  });
});

describe('MeshModel endpoint shards', () => {
  const se = (name: string, ns = 'qs'): Config =>
    cfg('ServiceEntry', name, { hosts: [`${name}.${ns}.svc.cluster.local`], location: 'MESH_INTERNAL', ports: [{ number: 80, name: 'grpc', protocol: 'GRPC' }], workloadSelector: { labels: { app: name } } }, ns);
  const we = (name: string, app: string, address: string, ns = 'qs'): Config => cfg('WorkloadEntry', name, { address, labels: { app } }, ns);
  const host = (name: string, ns = 'qs'): string => `${name}.${ns}.svc.cluster.local`;

  function loaded(): MeshModel {
    const m = model();
    const inputs: ModelInput[] = [];
    for (let i = 0; i < 20; i++) inputs.push(ev(se(`s${i}`)), ev(we(`s${i}-0`, `s${i}`, `10.0.${i}.1`)), ev(we(`s${i}-1`, `s${i}`, `10.0.${i}.2`)));
    m.apply(inputs);
    return m;
  }

  it('given one WorkloadEntry change should rebuild only its service shard and keep every other host object', () => {
    const m = loaded();
    const before = m.endpoints;
    const req = m.apply([ev(we('s3-0', 's3', '10.9.9.9'), 'updated')]);
    const after = m.endpoints;
    assert.equal(summary(req), `eds endpoint ServiceEntry/qs/${host('s3')}`);
    for (let i = 0; i < 20; i++) {
      if (i === 3) continue;
      assert.equal(after.shards(host(`s${i}`)), before.shards(host(`s${i}`)), `s${i} was rebuilt`);
    }
    assert.notEqual(after.shards(host('s3')), before.shards(host('s3')));
    assert.deepEqual([...after.shards(host('s3'))!.shards.keys()], ['ServiceEntry/qs/s3']);
    assert.equal(after.shards(host('s3'))!.version, after.version);
  });

  it('given a snapshot taken before later changes should not change', () => {
    const m = loaded();
    const taken = m.endpoints;
    const version = taken.version;
    const want = taken.instances(host('s1')).map((i) => i.address);
    m.apply([ev(we('s1-0', 's1', '10.9.9.9'), 'updated')]);
    m.apply([ev(we('s1-1', 's1', '10.9.9.9'), 'deleted')]);
    m.apply([ev(se('s1'), 'deleted')]);
    assert.deepEqual(taken.instances(host('s1')).map((i) => i.address), want);
    assert.equal(taken.version, version);
    assert.equal(m.endpoints.version, version + 3, 'one version per batch that changed endpoints');
    assert.deepEqual(m.endpoints.instances(host('s1')), []);
  });

  const detection: { name: string; change: ModelInput[]; hosts: string[]; want: string }[] = [
    { name: 'a moved endpoint', change: [ev(we('s2-1', 's2', '10.8.0.1'), 'updated')], hosts: ['s2'], want: 'eds' },
    { name: 'an endpoint relabelled from one service to another', change: [ev(we('s2-1', 's5', '10.0.2.2'), 'updated')], hosts: ['s2', 's5'], want: 'eds' },
    { name: 'an endpoint deleted', change: [ev(we('s7-0', 's7', '10.0.7.1'), 'deleted')], hosts: ['s7'], want: 'eds' },
    { name: 'two endpoints of two services in one batch', change: [ev(we('s1-0', 's1', '10.8.0.1'), 'updated'), ev(we('s9-0', 's9', '10.8.0.2'), 'updated')], hosts: ['s1', 's9'], want: 'eds' },
    { name: 'an endpoint re-sent unchanged', change: [ev(we('s4-0', 's4', '10.0.4.1'), 'updated')], hosts: [], want: 'none' },
    { name: 'an endpoint whose labels match no service', change: [ev(we('lonely', 'nobody', '10.8.0.3'))], hosts: [], want: 'none' },
  ];
  for (const c of detection) {
    it(`given ${c.name} should report exactly the changed services`, () => {
      const m = loaded();
      const before = m.endpoints;
      const req = m.apply(c.change);
      const changed = [];
      for (let i = 0; i < 20; i++) if (m.endpoints.shards(host(`s${i}`)) !== before.shards(host(`s${i}`))) changed.push(`s${i}`);
      assert.deepEqual(changed, c.hosts);
      assert.equal(summary(req), c.want === 'none' ? 'none' : `eds endpoint ${c.hosts.map((h) => `ServiceEntry/qs/${host(h)}`).sort().join(' ')}`);
    });
  }
});

describe('MeshModel endpoints inputs', () => {
  const host = 'web.a.svc.cluster.local';
  const instance = (address: string, labels: Record<string, string> = { app: 'web' }): ServiceInstance => ({
    hostname: host, servicePort: 80, servicePortName: 'grpc', address, port: 8080, labels, locality: { region: '', zone: '', subZone: '' },
    weight: 1, serviceAccount: '', network: '', health: 'HEALTHY', source: 'ServiceEntry/a/orch:web',
  });
  const shard = (instances: ServiceInstance[], key = 'Orchestrator/c1'): ModelInput => ({ kind: 'endpoints', hostname: host, shard: key, instances });

  it('given shard inputs should fold them in place, merge shards of one host and push EDS only for real changes', () => {
    const m = model();
    m.apply([ev(cfg('ServiceEntry', 'orch:web', { hosts: [host], location: 'MESH_INTERNAL', ports: [{ number: 80, name: 'grpc', protocol: 'GRPC' }] }, 'a'))]);
    assert.equal(summary(m.apply([shard([instance('10.1.0.1')])])), `eds endpoint ServiceEntry/a/${host}`);
    const other = m.endpoints.shards(host)!.shards.get('Orchestrator/c1');
    m.apply([shard([instance('10.2.0.1')], 'Orchestrator/c2')]);
    assert.equal(m.endpoints.shards(host)!.shards.get('Orchestrator/c1'), other, 'the other cluster shard is the same object');
    assert.deepEqual(m.endpoints.instances(host).map((i) => i.address), ['10.1.0.1', '10.2.0.1']);
    assert.equal(summary(m.apply([shard([instance('10.1.0.1')])])), 'none', 'the same instances again');
    assert.equal(summary(m.apply([shard([])])), `eds endpoint ServiceEntry/a/${host}`);
    assert.deepEqual(m.endpoints.instances(host).map((i) => i.address), ['10.2.0.1']);
  });

  it('given PILOT_DRAINING_LABEL on an instance of a shard input should serve it DRAINING', () => {
    const m = model();
    m.apply([shard([instance('10.1.0.1', { app: 'web', 'mesh.io/draining': '' }), instance('10.1.0.2')])]);
    assert.deepEqual(m.endpoints.instances(host).map((i) => i.health), ['DRAINING', 'HEALTHY']);
  });
});

describe('MeshModel unpublished (what the published snapshot does not cover yet)', () => {
  const host = 'web.a.svc.cluster.local';
  const se = ev(cfg('ServiceEntry', 'orch:web', { hosts: [host], location: 'MESH_INTERNAL', ports: [{ number: 80, name: 'grpc', protocol: 'GRPC' }] }, 'a'));
  const shard = (address: string): ModelInput => ({
    kind: 'endpoints', hostname: host, shard: 'Orchestrator/c1',
    instances: [{ hostname: host, servicePort: 80, servicePortName: 'grpc', address, port: 8080, labels: {}, locality: { region: '', zone: '', subZone: '' }, weight: 1, serviceAccount: '', network: '', health: 'HEALTHY', source: 'ServiceEntry/a/orch:web' }],
  });

  it('given batches waiting in the debouncer and EDS pushes that bypass it, should count what no published snapshot covers', () => {
    const clock = new ManualClock(0);
    const m = new MeshModel({ domain: 'cluster.local', drainingLabel: '', debounceAfter: 100, debounceMax: 1000, enableEdsDebounce: false, clock });
    const inputs = new Subject<readonly ModelInput[]>();
    const tokens: number[] = [];
    const sub = m.pushes(inputs).subscribe((r) => tokens.push(r.snapshot!.token));
    try {
      assert.equal(m.unpublished, 0, 'nothing applied');
      inputs.next([]);
      assert.equal(m.unpublished, 0, 'an empty batch calls for no push: the initial snapshot is complete');
      inputs.next([se]);
      assert.equal(m.unpublished, 1, 'applied, waiting in the debouncer');
      inputs.next([shard('10.0.0.1')]);
      assert.deepEqual(tokens, [1], 'the EDS push bypassed the window');
      assert.equal(m.unpublished, 2, 'the EDS push does not publish the waiting ServiceEntry');
      clock.advanceSync(150);
      assert.deepEqual(tokens, [1, 2]);
      assert.equal(m.unpublished, 0, 'the full push covers everything applied');
      inputs.next([shard('10.0.0.2')]);
      assert.equal(m.unpublished, 0, 'an EDS push alone covers its endpoints');
      inputs.next([se]);
      assert.equal(m.unpublished, 0, 'a batch that changes nothing calls for no push');
    } finally {
      sub.unsubscribe();
    }
  });
});

describe('MeshModel headless endpoint changes', () => {
  const headless = cfg('ServiceEntry', 'orch:db', { hosts: ['db.qs.svc.cluster.local'], location: 'MESH_INTERNAL', ports: [{ number: 9042, name: 'tcp', protocol: 'TCP' }], resolution: 'NONE', workloadSelector: { labels: { app: 'db' } } });
  const vip = cfg('ServiceEntry', 'vip', { hosts: ['vip.qs.svc.cluster.local'], addresses: ['10.96.0.9'], location: 'MESH_INTERNAL', ports: [{ number: 9042, name: 'tcp', protocol: 'TCP' }], resolution: 'STATIC', workloadSelector: { labels: { app: 'vip' } } });
  const cases = [
    { name: 'given headless endpoints shape listeners and a headless pod added should push full, naming the service (as istiod)', on: true, app: 'db', want: 'full endpoint ServiceEntry/qs/db.qs.svc.cluster.local' },
    { name: 'given headless endpoints do not shape listeners and a headless pod added should push EDS only', on: false, app: 'db', want: 'eds endpoint ServiceEntry/qs/db.qs.svc.cluster.local' },
    { name: 'given headless endpoints shape listeners and a pod of a service with a VIP added should push EDS only', on: true, app: 'vip', want: 'eds endpoint ServiceEntry/qs/vip.qs.svc.cluster.local' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const m = new MeshModel({ domain: 'cluster.local', drainingLabel: 'mesh.io/draining', debounceAfter: 0, debounceMax: 0, enableEdsDebounce: true, headlessEndpointsShapeListeners: c.on });
      m.apply([ev(headless), ev(vip)]);
      m.rebuild();
      assert.equal(summary(m.apply([ev(WE('10.1.0.9', { app: c.app }))])), c.want);
    });
  }
});
