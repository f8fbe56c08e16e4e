import assert from 'node:assert/strict';
import { Subject, type Subscription } from 'rxjs';
import type { ModelInput } from '../core/index.js';
import { DEFAULT_YAML_LIMITS } from '../crds/index.js';
import { crdConfigSource, crdResource, isMissingCrd, type CrdConfigSourceOptions, type CrdStatusReport, type RejectedCrd } from './crd-config-source.js';
import { RejectedConfigs } from './rejected-configs.js';
import { InformerFactory, resourcePath } from './orch/index.js';
import { PathTransport } from './orch-registry/testing/path-transport.js';

const VS = resourcePath(crdResource('VirtualService'));
const DR = resourcePath(crdResource('DestinationRule'));

function vs(name: string, hosts: string[], meta: { generation?: number; resourceVersion?: string } = {}): Record<string, unknown> {
  return {
    apiVersion: 'networking.mesh.io/v1alpha3',
    kind: 'VirtualService',
    metadata: { name, namespace: 'ns', resourceVersion: meta.resourceVersion ?? '5', uid: 'u-1', managedFields: [{ manager: 'x' }], ...(meta.generation === undefined ? {} : { generation: meta.generation }) },
    spec: { hosts, http: [{ route: [{ destination: { host: 'reviews' } }] }] },
  };
}

async function settle(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`never reached: ${what}`);
}

describe('crdConfigSource', () => {
  let transport: PathTransport;
  let batches: (readonly ModelInput[])[];
  let rejected: RejectedCrd[];
  let events: string[];
  /** Batches and status reports in the order they came: `batch` or `<name>@<generation> <accepted|message>`. */
  let order: string[];
  let sub: Subscription | undefined;

  const startWithStatus = (): void => {
    const missing$ = new Subject<string>();
    const informers = new InformerFactory(transport, { onError: (e) => isMissingCrd(e) && missing$.next(e.resource) });
    const onStatus = (r: CrdStatusReport): void => {
      order.push(`${r.key.kind}/${r.key.namespace}/${r.key.name}@${r.generation} ${r.outcome.accepted ? 'accepted' : r.outcome.message}`);
    };
    sub = crdConfigSource({ informers, kinds: ['VirtualService', 'DestinationRule'], onStatus }, missing$).subscribe((b) => {
      batches.push(b);
      order.push('batch');
    });
  };
  const start = (more: Partial<CrdConfigSourceOptions> = {}): void => {
    const missing$ = new Subject<string>();
    const informers = new InformerFactory(transport, { onError: (e) => isMissingCrd(e) && missing$.next(e.resource) });
    sub = crdConfigSource(
      { informers, kinds: ['VirtualService', 'DestinationRule'], onRejected: (r) => rejected.push(r), onEvent: (k, e) => events.push(`${k}:${e}`), ...more },
      missing$,
    ).subscribe((b) => batches.push(b));
  };
  const keysOf = (b: readonly ModelInput[] | undefined): string[] =>
    (b ?? []).map((i) => (i.kind === 'config' ? `${i.event.type} ${i.event.key.kind}/${i.event.key.namespace}/${i.event.key.name}` : i.kind));

  beforeEach(() => {
    transport = new PathTransport();
    batches = [];
    rejected = [];
    events = [];
    order = [];
  });
  afterEach(() => sub?.unsubscribe());

  it('given a valid and a semantically invalid object listed, should emit only the valid one in the first batch and report the other once', async () => {
    transport.lists.set(VS, [vs('good', ['reviews']), vs('bad', ['reviews', 'bad host!'])]);
    transport.lists.set(DR, []);
    start();
    await settle('the first batch', () => batches.length === 1);
    assert.deepEqual(keysOf(batches[0]), ['added VirtualService/ns/good']);
    assert.equal(rejected.length, 1);
    assert.equal(rejected[0]!.name, 'ns/bad');
    assert.match(rejected[0]!.message, /^VirtualService ns\/bad \(resourceVersion 5\): spec\.hosts\[1\]/);
    assert.deepEqual(events.sort(), ['VirtualService:add', 'VirtualService:add']);
  });

  it('given an accepted object, should keep only the metadata the model uses', async () => {
    transport.lists.set(VS, [vs('good', ['reviews'])]);
    transport.lists.set(DR, []);
    start();
    await settle('the first batch', () => batches.length === 1);
    const input = batches[0]![0]!;
    assert.ok(input.kind === 'config');
    assert.deepEqual(input.event.object?.metadata, { name: 'good', namespace: 'ns', resourceVersion: '5' });
  });

  it('given a kind whose CRD is missing (404), should still emit the first batch', async () => {
    transport.lists.set(VS, [vs('good', ['reviews'])]);
    start();
    await settle('the first batch', () => batches.length === 1);
    assert.deepEqual(keysOf(batches[0]), ['added VirtualService/ns/good']);
  });

  it('given watch events after the sync, should emit added, updated and deleted, and keep the last valid version of an object that turns invalid', async () => {
    const book = new RejectedConfigs();
    const recovered: RejectedCrd[] = [];
    transport.lists.set(VS, []);
    transport.lists.set(DR, []);
    start({ rejections: book, onRecovered: (r) => recovered.push(r) });
    await settle('the first batch and the watch', () => batches.length === 1 && transport.watching(VS));
    transport.emit(VS, 'ADDED', vs('a', ['reviews'], { resourceVersion: '10' }));
    transport.emit(VS, 'MODIFIED', vs('a', ['ratings'], { resourceVersion: '11' }));
    transport.emit(VS, 'MODIFIED', vs('a', ['ratings', 'bad host!'], { resourceVersion: '12' }));
    // NOTE: a status-only change (a new resourceVersion, the same content) is not a new bad version.
    transport.emit(VS, 'MODIFIED', vs('a', ['ratings', 'bad host!'], { resourceVersion: '13' }));
    transport.emit(VS, 'MODIFIED', vs('a', ['ratings', 'still bad!'], { resourceVersion: '14' }));
    transport.emit(VS, 'ADDED', vs('b', ['reviews']));
    transport.emit(VS, 'DELETED', vs('b', ['reviews']));
    await settle('five batches', () => batches.length === 5);
    assert.deepEqual(batches.slice(1).map((b) => keysOf(b)), [
      ['added VirtualService/ns/a'],
      ['updated VirtualService/ns/a'],
      ['added VirtualService/ns/b'],
      ['deleted VirtualService/ns/b'],
    ]);
    // NOTE: the transport numbers resourceVersions itself; the last valid one is the update's.
    const served = (batches[2]![0] as { event: { resourceVersion: string } }).event.resourceVersion;
    const [bad1, bad2] = rejected.map((r) => r.resourceVersion);
    assert.deepEqual(rejected.map((r) => r.servedResourceVersion), [served, served], 'each distinct bad version is reported once, with the version still served');
    assert.equal(Number(bad2) - Number(bad1), 2, 'the status-only change in between is not reported');
    assert.match(rejected[1]!.message, new RegExp(`still serving resourceVersion ${served}$`));
    assert.deepEqual(book.list().map((e) => [e.object, e.location, e.served]), [['VirtualService ns/a', `resourceVersion ${bad2}`, `resourceVersion ${served}`]]);
    transport.emit(VS, 'MODIFIED', vs('a', ['fixed'], { resourceVersion: '15' }));
    await settle('the fixed version', () => batches.length === 6);
    assert.deepEqual(keysOf(batches[5]), ['updated VirtualService/ns/a']);
    assert.equal(recovered.length, 1);
    assert.deepEqual(book.list(), []);
    transport.emit(VS, 'MODIFIED', vs('a', ['bad again!'], { resourceVersion: '16' }));
    transport.emit(VS, 'DELETED', vs('a', ['bad again!'], { resourceVersion: '17' }));
    await settle('the delete', () => batches.length === 7);
    assert.deepEqual(keysOf(batches[6]), ['deleted VirtualService/ns/a']);
    assert.deepEqual(book.list(), [], 'a deleted object has no rejection');
  });

  it('given an object over the key limit, should reject it without validating and keep the last valid version', async () => {
    transport.lists.set(VS, []);
    transport.lists.set(DR, []);
    start({ limits: { ...DEFAULT_YAML_LIMITS, maxKeys: 40 } });
    await settle('the first batch and the watch', () => batches.length === 1 && transport.watching(VS));
    transport.emit(VS, 'ADDED', vs('a', ['reviews'], { resourceVersion: '10' }));
    const huge = vs('a', ['reviews'], { resourceVersion: '11' });
    (huge['spec'] as Record<string, unknown>)['http'] = Array.from({ length: 20 }, () => ({ route: [{ destination: { host: 'reviews' } }] }));
    transport.emit(VS, 'MODIFIED', huge);
    await settle('the rejection', () => rejected.length === 1);
    assert.match(rejected[0]!.message, /more than 40 mapping keys \(limit maxKeys\); still serving resourceVersion \d+$/);
    assert.deepEqual(batches.slice(1).map((b) => keysOf(b)), [['added VirtualService/ns/a']]);
  });

  it('given listed objects, should report each generation accepted or rejected with the field path, after the first batch', async () => {
    transport.lists.set(VS, [vs('good', ['reviews'], { generation: 1 }), vs('bad', ['reviews', 'bad host!'], { generation: 3 }), vs('nogen', ['reviews'])]);
    transport.lists.set(DR, []);
    startWithStatus();
    await settle('the first batch and two reports', () => order.length === 3);
    assert.equal(order[0], 'batch', 'an object is reported accepted only once it is in a batch the model reads');
    assert.deepEqual(order.slice(1, 2), ['VirtualService/ns/good@1 accepted']);
    assert.match(order[2]!, /^VirtualService\/ns\/bad@3 spec\.hosts\[1\]: /);
  });

  it('given watch events, should report a new generation or outcome once and not a status-only change', async () => {
    transport.lists.set(VS, []);
    transport.lists.set(DR, []);
    startWithStatus();
    await settle('the first batch and the watch', () => batches.length === 1 && transport.watching(VS));
    transport.emit(VS, 'ADDED', vs('a', ['reviews'], { generation: 1, resourceVersion: '10' }));
    transport.emit(VS, 'MODIFIED', vs('a', ['reviews'], { generation: 1, resourceVersion: '11' }));
    transport.emit(VS, 'MODIFIED', vs('a', ['reviews', 'bad host!'], { generation: 2, resourceVersion: '12' }));
    transport.emit(VS, 'MODIFIED', vs('a', ['reviews', 'bad host!'], { generation: 2, resourceVersion: '13' }));
    transport.emit(VS, 'MODIFIED', vs('a', ['ratings'], { generation: 3, resourceVersion: '14' }));
    transport.emit(VS, 'DELETED', vs('a', ['ratings'], { generation: 3, resourceVersion: '15' }));
    transport.emit(VS, 'ADDED', vs('a', ['ratings'], { generation: 1, resourceVersion: '16' }));
    await settle('the last report', () => order.filter((o) => o !== 'batch').length === 4);
    const reports = order.filter((o) => o !== 'batch');
    assert.equal(reports[0], 'VirtualService/ns/a@1 accepted');
    assert.match(reports[1]!, /^VirtualService\/ns\/a@2 spec\.hosts\[1\]: /);
    assert.deepEqual(reports.slice(2), ['VirtualService/ns/a@3 accepted', 'VirtualService/ns/a@1 accepted']);
  });
});
