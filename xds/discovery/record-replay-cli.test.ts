/**
 * End to end through the real programs: `pilot-discovery discovery --configDir DIR --record FILE` serves a
 * SotW proxy over real gRPC on real time (default debounce) while a file is edited; after meshd stops,
 * `meshctl x replay FILE -o json` replays the log and must write, for that proxy, the responses it
 * received, byte for byte, and say why each push happened.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lookupType } from '../protos/index.js';
import { TYPE_URL } from '../server/contracts.js';
import { AdsClient } from '../testing/ads-client.js';
import { startFileMeshd, type FileMeshd } from '../testing/file-meshd.js';
import { until } from '../generators/testing/mesh-harness.js';

const HOST = 'echo.qs.svc.cluster.local';
const BIN = (name: string): string => fileURLToPath(new URL(`../../../bin/${name}`, import.meta.url));
const SERVICE = `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: echo }
spec:
  hosts: [${HOST}]
  location: MESH_INTERNAL
  ports: [{ number: 50051, name: grpc, protocol: GRPC }]
  resolution: STATIC
  endpoints: [{ address: 10.0.0.1, ports: { grpc: 8080 }, labels: { version: v1 } }, { address: 10.0.0.2, ports: { grpc: 8080 }, labels: { version: v2 } }]
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: echo }
spec:
  host: ${HOST}
  subsets: [{ name: v1, labels: { version: v1 } }, { name: v2, labels: { version: v2 } }]
`;
const route = (v1: number, v2: number): string => `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: echo }
spec:
  hosts: [${HOST}]
  http: [{ route: [{ destination: { host: ${HOST}, subset: v1 }, weight: ${v1} }, { destination: { host: ${HOST}, subset: v2 }, weight: ${v2} }] }]
`;

interface JsonReplay {
  pushes: { cause: string; reasons: Record<string, number>; configs: string[]; responses: { nodeId: string; typeUrl: string; message: string }[] }[];
  warnings: string[];
}

describe('pilot-discovery --record and meshctl x replay', function () {
  this.timeout(120_000);
  let dir = '';
  let meshd: FileMeshd | undefined;
  let client: AdsClient | undefined;
  const cleanup = async (): Promise<void> => {
    client?.close();
    await meshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  afterEach(cleanup);

  it('given a recorded meshd run with edits should replay the proxy\'s responses byte for byte and name the configs that caused them', async () => {
    dir = mkdtempSync(join(tmpdir(), 'mesh-record-'));
    const configDir = join(dir, 'config');
    const logFile = join(dir, 'events.jsonl');
    mkdirSync(configDir);
    writeFileSync(join(configDir, 'service.yaml'), SERVICE);
    writeFileSync(join(configDir, 'route.yaml'), route(70, 30));
    meshd = await startFileMeshd({ configDir, args: ['--record', logFile] });
    const ports = meshd.ports;
    assert.match(meshd.output(), /recording the event log/);
    // NOTE: the proxy connects at once, while the start's inputs (files, mesh config, networks config) may
    // still be in a debounce window: the log records which snapshot each answer read.

    const c = new AdsClient({ address: `127.0.0.1:${ports.grpc}`, node: { id: `sidecar~10.0.1.1~a.qs~qs.svc.cluster.local`, metadata: { GENERATOR: 'grpc', NAMESPACE: 'qs' } }, autoAck: true });
    client = c;
    c.subscribe(TYPE_URL.cluster);
    c.subscribe(TYPE_URL.listener, [`${HOST}:50051`]);
    c.subscribe(TYPE_URL.route, [`outbound|50051||${HOST}`]);
    /** The route weights the proxy holds now, e.g. `70/30` (empty before the route arrives). */
    const weights = (): string => {
      const body = c.latest(TYPE_URL.route)?.resources[0]?.body;
      if (!body) return '';
      const rc = lookupType(TYPE_URL.route).toObject(lookupType(TYPE_URL.route).decode(body)) as {
        virtualHosts?: { routes?: { route?: { weightedClusters?: { clusters?: { weight?: { value?: number } }[] } } }[] }[];
      };
      return (rc.virtualHosts?.[0]?.routes?.[0]?.route?.weightedClusters?.clusters ?? []).map((x) => x.weight?.value ?? 0).join('/');
    };
    await until(() => weights() === '70/30', 'the first route');
    // Edits far apart (several debounce windows): each is one push.
    for (const [v1, v2] of [[10, 90], [50, 50]] as const) {
      writeFileSync(join(configDir, 'route.yaml'), route(v1, v2));
      await until(() => weights() === `${v1}/${v2}`, `the push of ${v1}/${v2}`);
    }
    const received = c.responses.map((r) => r.raw.toString('base64'));
    c.close();
    await meshd.stop();

    const r = spawnSync(process.execPath, [BIN('meshctl'), 'x', 'replay', logFile, '-o', 'json'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    const replay = JSON.parse(r.stdout) as JsonReplay;
    assert.deepEqual(replay.warnings, []);
    const replayed = replay.pushes.flatMap((p) => p.responses).filter((x) => x.nodeId.includes('~a.qs~')).map((x) => x.message);
    assert.equal(replayed.length, received.length, `as many responses replayed as received\n${r.stdout.slice(0, 4000)}`);
    replayed.forEach((m, i) => assert.equal(m, received[i], `response ${i} byte for byte`));
    const edits = replay.pushes.filter((p) => p.cause === 'push' && p.configs.join() === 'VirtualService/qs/echo' && p.responses.length > 0);
    assert.equal(edits.length, 2, 'one push per edit, naming the VirtualService');

    const short = spawnSync(process.execPath, [BIN('meshctl'), 'x', 'replay', logFile], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(short.status, 0, short.stderr);
    assert.match(short.stdout, /push full \(snapshot \d+; reasons config=1; configs VirtualService\/qs\/echo\)\n {2}sidecar~10\.0\.1\.1~a\.qs~qs\.svc\.cluster\.local RDS version \d+ nonce [0-9a-f]+-\d+: \[/);
    // NOTE: the first files name their configs, unless the mesh and networks config loaded in the same debounce
    // window (a slow start): then one full push covers everything (`configs (all)`), which is as true.
    assert.match(short.stdout, /push full \(snapshot \d+; reasons [^)]*config=\d+[^)]*; configs (\(all\)|DestinationRule\/qs\/echo, ServiceEntry\/qs\/echo, [^)]*VirtualService\/qs\/echo)\)/, `the push of the first files names them\n${short.stdout.slice(0, 3000)}`);
    assert.match(short.stdout, /request from sidecar~10\.0\.1\.1~a\.qs~qs\.svc\.cluster\.local-\d+ \(snapshot \d+; reasons proxyrequest=1/);
  });

  it('given a file that is not an event log should fail naming the file and line', () => {
    dir = mkdtempSync(join(tmpdir(), 'mesh-record-'));
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, 'not json\n');
    const r = spawnSync(process.execPath, [BIN('meshctl'), 'x', 'replay', bad], { encoding: 'utf8', timeout: 60_000 });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /bad\.jsonl:1: not JSON/);
  });
});
