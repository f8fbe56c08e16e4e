/**
 * Chaos: meshd restarts under a few hundred connected proxyless clients. Each client reconnects as a
 * proxy does (capped exponential backoff with jitter, from a seeded random source) and resubscribes; the
 * test waits, with a deadline, until every client holds the echo cluster from a stream to the new meshd,
 * and prints how long that took.
 */
import assert from 'node:assert/strict';
import { TYPE_URL } from '../server/contracts.js';
import { AdsClient } from '../testing/ads-client.js';
import { echoNode, startEchoMeshd, type EchoMeshd } from '../testing/echo-meshd.js';
import { eventually } from '../testing/eventually.js';

/** A seeded xorshift random source in [0, 1), so a run's backoffs repeat. */
function seeded(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** A proxy that keeps one SotW stream open, reconnecting after it ends. */
class ReconnectingProxy {
  #client: AdsClient | undefined;
  #closed = false;
  #attempt = 0;
  #timer: NodeJS.Timeout | undefined;
  /** Streams opened so far. */
  streams = 0;
  /** The stream number that last delivered the echo cluster. */
  servedOn = 0;

  constructor(
    readonly address: string,
    readonly pod: string,
    readonly random: () => number,
  ) {
    this.#connect();
  }

  #connect(): void {
    if (this.#closed) return;
    const stream = ++this.streams;
    const c = new AdsClient({ address: this.address, node: echoNode(this.pod), autoAck: true, keepBodies: false });
    this.#client = c;
    c.subscribe(TYPE_URL.cluster);
    void c.waitFor('clusters', () => c.latest(TYPE_URL.cluster), 60_000).then(
      () => {
        this.#attempt = 0;
        this.servedOn = stream;
      },
      () => undefined,
    );
    void c.status.then(() => {
      c.close();
      if (this.#closed) return;
      // NOTE: Envoy's and grpc-js-xds's reconnect: exponential from 50 ms, capped at 2 s, full jitter.
      const cap = Math.min(2000, 50 * 2 ** this.#attempt++);
      this.#timer = setTimeout(() => this.#connect(), Math.floor(this.random() * cap));
    });
  }

  /** True when the stream open now has delivered clusters (the echo cluster, the only one served). */
  converged(): boolean {
    return this.servedOn === this.streams && (this.#client?.latest(TYPE_URL.cluster)?.resourceCount ?? 0) > 0;
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#client?.close();
  }
}

describe('meshd restart with many connected proxyless clients (chaos)', function () {
  this.timeout(120_000);
  const N = 300;
  let meshd: EchoMeshd | undefined;
  const proxies: ReconnectingProxy[] = [];
  afterEach(async () => {
    for (const p of proxies.splice(0)) p.close();
    await meshd?.close();
    meshd = undefined;
  });

  it(`given ${N} connected clients and a meshd restart on the same port should have every client reconnect and converge`, async () => {
    meshd = await startEchoMeshd({ controlPlaneId: 'meshd-a' });
    const { port, address } = meshd;
    const random = seeded(19_25);
    for (let i = 0; i < N; i++) proxies.push(new ReconnectingProxy(address, `p${i}`, random));
    await eventually('every client served by the first meshd', () => proxies.every((p) => p.converged()), 60_000);
    assert.equal(meshd.discovery.ads.connections().length, N);
    const before = proxies.map((p) => p.streams);

    const stopped = performance.now();
    await meshd.close();
    meshd = await startEchoMeshd({ port, controlPlaneId: 'meshd-b' });
    const restarted = performance.now();
    await eventually('every client served again by the restarted meshd', () => proxies.every((p, i) => p.streams > before[i]! && p.converged()) || undefined, 60_000);
    const converged = performance.now();

    assert.equal(meshd.discovery.ads.connections().length, N, 'one stream per client, none left over');
    const reconnects = proxies.reduce((n, p, i) => n + p.streams - before[i]!, 0);
    assert.ok(proxies.every((p) => p.converged()));
    process.stdout.write(
      `      survived: meshd restart under ${N} clients; down ${(restarted - stopped).toFixed(0)} ms, all converged ${(converged - restarted).toFixed(0)} ms after the restart, ${reconnects} stream attempts\n`,
    );
  });
});
