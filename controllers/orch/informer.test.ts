import assert from 'node:assert/strict';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ManualClock } from '../../core/index.js';
import { Informer, type InformerError, type InformerEvent } from './informer.js';
import { OrchApiError } from './orch-client.js';
import { ORCH_RESOURCES } from './orch-resource.js';
import { ScriptedTransport } from './testing/scripted-transport.js';

interface Cm extends KubernetesObject {
  data?: Record<string, string>;
}

function cm(name: string, rv: string, value = rv): Cm {
  return { metadata: { name, namespace: 'ns', resourceVersion: rv }, data: { value } };
}

/** Lets pending promise callbacks run until `check` holds (no timers involved). */
async function settle(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`never reached: ${what}`);
}

describe('Informer (scripted transport)', () => {
  let transport: ScriptedTransport;
  let clock: ManualClock;
  let errors: InformerError[];
  let events: InformerEvent<Cm>[];
  let informer: Informer<Cm>;
  let stop: () => void = () => undefined;
  /** Subscribes once the test has scripted the first list. */
  const start = (): void => {
    const subscription = informer.subscribe((e) => events.push(e));
    stop = () => subscription.unsubscribe();
  };

  beforeEach(() => {
    transport = new ScriptedTransport();
    clock = new ManualClock();
    errors = [];
    events = [];
    informer = new Informer<Cm>(transport, ORCH_RESOURCES.configMaps, {
      namespace: 'ns',
      backoff: { initialMs: 100, maxMs: 400, jitter: 0 },
      clock,
      onError: (e) => errors.push(e),
      watchTimeoutSeconds: 60,
    });
  });

  afterEach(() => stop());

  /**
   * Waits for the informer's `errorCount`th error, after which it sleeps on the clock (its only timer then:
   * no watch is open, so no watchdog), checks the delay, and lets it pass.
   */
  const passBackoff = async (wantMs: number, errorCount: number): Promise<void> => {
    await settle(`error ${errorCount}`, () => errors.length === errorCount);
    assert.deepEqual(clock.timersDueIn(), [wantMs]);
    await clock.advance(wantMs);
  };

  const summary = (): string[] => events.map((e) => `${e.type} ${e.key} ${e.resourceVersion}`);

  it('given a list and watch events, should emit added, updated and deleted and skip repeats', async () => {
    transport.list = { resourceVersion: '10', items: [cm('a', '5')] };
    start();
    await settle('the first watch', () => transport.watches.length === 1);
    const watch = transport.lastWatch();
    assert.equal(watch.query['resourceVersion'], '10');
    assert.equal(watch.query['allowWatchBookmarks'], true);
    assert.equal(watch.path, '/api/v1/namespaces/ns/configmaps');
    watch.events.next({ type: 'MODIFIED', object: cm('a', '11') as never });
    watch.events.next({ type: 'MODIFIED', object: cm('a', '11') as never });
    watch.events.next({ type: 'ADDED', object: cm('b', '12') as never });
    watch.events.next({ type: 'DELETED', object: cm('a', '13') as never });
    watch.events.next({ type: 'DELETED', object: cm('zz', '14') as never });
    assert.deepEqual(summary(), ['added ns/a 5', 'updated ns/a 11', 'added ns/b 12', 'deleted ns/a 13']);
    assert.equal(events[1]!.oldObject?.metadata?.resourceVersion, '5');
    assert.equal(informer.resourceVersion, '14');
    assert.equal(informer.get('ns/a'), undefined);
    assert.equal(informer.get('ns/b')?.kind, 'ConfigMap');
  });

  it('given a bookmark then a dropped watch, should resume from the bookmark after a backoff', async () => {
    start();
    await settle('the first watch', () => transport.watches.length === 1);
    transport.lastWatch().events.next({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '42' } } });
    transport.lastWatch().events.error(new Error('connection reset'));
    await passBackoff(100, 1);
    await settle('a second watch', () => transport.watches.length === 2);
    assert.equal(transport.lastWatch().query['resourceVersion'], '42');
    assert.equal(transport.lists.length, 1, 'a dropped watch must not relist');
    assert.equal(errors[0]?.phase, 'watch');
  });

  it('given a 410 Gone event, should relist at once and report the differences', async () => {
    transport.list = { resourceVersion: '10', items: [cm('keep', '1'), cm('change', '2'), cm('remove', '3')] };
    start();
    await settle('the first watch', () => transport.watches.length === 1);
    transport.list = { resourceVersion: '20', items: [cm('keep', '1'), cm('change', '15'), cm('new', '16')] };
    transport.lastWatch().events.next({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' } });
    await settle('a watch after the relist', () => transport.watches.length === 2);
    assert.equal(transport.lastWatch().query['resourceVersion'], '20');
    assert.deepEqual(summary().slice(3), ['updated ns/change 15', 'added ns/new 16', 'deleted ns/remove 3']);
    assert.equal(clock.now(), 0, 'no backoff before the relist');
    assert.deepEqual(clock.timersDueIn(), [120_000], "only the new watch's watchdog is pending");
    assert.equal(errors[0]?.retryInMs, 0);
  });

  it('given the watch expires again right after a relist, should back off instead of spinning', async () => {
    start();
    await settle('the first watch', () => transport.watches.length === 1);
    const gone = { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } } as const;
    transport.lastWatch().events.next(gone);
    await settle('the second watch', () => transport.watches.length === 2);
    transport.lastWatch().events.next(gone);
    await passBackoff(100, 2);
    await settle('the third watch', () => transport.watches.length === 3);
    assert.deepEqual(errors.map((e) => e.retryInMs), [0, 100]);
  });

  it('given a watch still open a minute past its server-side timeout, should drop it as dead and watch again', async () => {
    transport.list = { resourceVersion: '10', items: [] };
    start();
    await settle('the first watch', () => transport.watches.length === 1);
    const first = transport.lastWatch();
    assert.deepEqual(clock.timersDueIn(), [120_000], 'the watchdog: 60 s timeout + 60 s grace');
    await clock.advance(119_999);
    assert.equal(errors.length, 0, 'not before the grace has passed');
    await clock.advance(1);
    assert.match(String(errors[0]?.error), /watch \/api\/v1\/namespaces\/ns\/configmaps outlived its 60 s timeout: connection presumed dead/);
    assert.equal(errors[0]?.phase, 'watch');
    assert.equal(first.closed, true, 'the dead watch is closed');
    await passBackoff(100, 1);
    await settle('a second watch', () => transport.watches.length === 2);
    assert.equal(transport.lastWatch().query['resourceVersion'], '10', 'resumes without a relist');
    assert.equal(transport.lists.length, 1);
  });

  it('given a failing list, should retry it with growing delays', async () => {
    transport.listError = new OrchApiError(403, 'Forbidden', 'GET', '/api/v1/namespaces/ns/configmaps', 'denied');
    start();
    await passBackoff(100, 1);
    await settle('the first watch', () => transport.watches.length === 1);
    assert.equal(transport.lists.length, 2);
    assert.equal(errors[0]?.phase, 'list');
  });

  it('given the only subscriber unsubscribes, should close the watch and forget the cache', async () => {
    transport.list = { resourceVersion: '10', items: [cm('a', '5')] };
    start();
    await settle('the first watch', () => transport.watches.length === 1);
    stop();
    assert.equal(transport.lastWatch().closed, true);
    assert.equal(informer.running, false);
    assert.deepEqual(informer.list(), []);
  });
});
