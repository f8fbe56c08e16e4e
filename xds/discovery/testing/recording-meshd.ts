/** A recording MeshDiscovery on a loopback port, one per test, for the record/replay tests of this folder. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { Subject, type Subscription } from 'rxjs';
import { closeGrpcServer, type ModelInput } from '../../../core/index.js';
import { configEvent, configsFromYaml } from '../../generators/testing/model-fixtures.js';
import { MeshDiscovery, type MeshDiscoveryOptions } from '../mesh-discovery.js';

/** A started meshd: its discovery, its ADS address, and a way to feed it configs. */
export interface RecordingMeshd {
  readonly discovery: MeshDiscovery;
  readonly address: string;
  /** Sends the configs of `yaml` as `type` events, or as added the first time and updated after. */
  apply(yaml: string, type?: 'deleted'): void;
}

/** What a test gets from {@link useRecordingMeshd}. */
export interface RecordingMeshdTest {
  /** A fresh folder for this test (for the event log). */
  readonly dir: string;
  /** Run after the test, before meshd stops (clients to close). */
  readonly closers: (() => void)[];
  start(options: MeshDiscoveryOptions): Promise<RecordingMeshd>;
}

/** Call inside a `describe`: a folder per test, and everything `start` made torn down after each test. */
export function useRecordingMeshd(prefix: string): RecordingMeshdTest {
  let dir = '';
  let server: grpc.Server | undefined;
  let sub: Subscription | undefined;
  let discovery: MeshDiscovery | undefined;
  const closers: (() => void)[] = [];
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), prefix))));
  afterEach(async () => {
    for (const c of closers.splice(0)) c();
    sub?.unsubscribe();
    discovery?.ads.close();
    await discovery?.recorder?.close();
    if (server) await closeGrpcServer(server, 2000);
    [server, sub, discovery] = [undefined, undefined, undefined];
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
    closers,
    async start(options) {
      const d = (discovery = new MeshDiscovery(options));
      const s = (server = new grpc.Server());
      d.ads.register(s);
      const port = await new Promise<number>((resolve, reject) => s.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
      const inputs = new Subject<readonly ModelInput[]>();
      sub = d.connect(inputs);
      const seen = new Set<string>();
      const apply = (yaml: string, type?: 'deleted'): void =>
        inputs.next(
          configsFromYaml(yaml).map((c) => {
            const key = `${c.kind}/${c.metadata.namespace}/${c.metadata.name}`;
            const t = type ?? (seen.has(key) ? 'updated' : 'added');
            seen.add(key);
            return configEvent(c, t);
          }),
        );
      return { discovery: d, address: `127.0.0.1:${port}`, apply };
    },
  };
}
