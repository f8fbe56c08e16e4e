/**
 * End to end through the real meshd process (`bin/pilot-discovery discovery --configDir`): a bad
 * document in the config dir is rejected with a message naming file, document, kind/name and field,
 * counted in pilot_total_rejected_configs, and everything else keeps being served to a real
 * grpc-js-xds client.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as xds from '@grpc/grpc-js-xds';
import { bootstrapJson, callOnce, startBackend, until, type Backend } from '../testing/mesh-harness.js';
import { startFileMeshd, type FileMeshd } from '../../testing/file-meshd.js';

function serviceYaml(port: number): string {
  return `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: echo }
spec:
  hosts: [echo.qs.svc.cluster.local]
  location: MESH_INTERNAL
  ports: [{ number: 50051, name: grpc, protocol: GRPC }]
  resolution: STATIC
  endpoints: [{ address: 127.0.0.1, ports: { grpc: ${port} } }]
`;
}

describe('meshd with a config dir holding a bad document', function () {
  this.timeout(120_000);
  let dir: string;
  let meshd: FileMeshd | undefined;
  let backend: Backend;
  let second: Backend;
  let client: grpc.Client;
  let ports: FileMeshd['ports'];

  before(async () => {
    xds.register();
    backend = await startBackend('echo');
    second = await startBackend('echo-2');
    dir = mkdtempSync(join(tmpdir(), 'mesh-meshd-'));
    writeFileSync(join(dir, 'service.yaml'), serviceYaml(backend.port));
    writeFileSync(
      join(dir, 'bad.yaml'),
      `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: broken }
spec:
  host: echo.qs.svc.cluster.local
  trafficPolicy: { loadBalancer: { simple: FASTEST } }
`,
    );
    meshd = await startFileMeshd({ configDir: dir, env: { PILOT_DEBOUNCE_AFTER: '10ms' } });
    ports = meshd.ports;
    client = new grpc.Client('xds:///echo.qs.svc.cluster.local:50051', grpc.credentials.createInsecure(), {
      'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': bootstrapJson(`127.0.0.1:${ports.grpc}`, 'qs'),
    });
  });

  after(async () => {
    client?.close();
    await meshd?.stop();
    await backend?.close();
    await second?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('should keep serving the valid ServiceEntry to a proxyless client', async () => {
    await until(async () => (await callOnce(client)).ok, 'a call served through meshd');
  });

  it('should log what is wrong: file, document, kind/name and field', async () => {
    await until(() => /bad\.yaml: document 1 \(DestinationRule qs\/broken\): spec\.trafficPolicy\.loadBalancer\.simple/.test(meshd!.output()), `the rejection in the log:\n${meshd!.output()}`);
  });

  it('should count the rejection in pilot_total_rejected_configs', async () => {
    const text = await (await fetch(`http://127.0.0.1:${ports.monitoring}/metrics`)).text();
    assert.match(text, /^pilot_total_rejected_configs\{type="DestinationRule"\} 1$/m);
  });

  it('should show only the valid config in /debug/configz', async () => {
    const configs = (await (await fetch(`http://127.0.0.1:${ports.http}/debug/configz`)).json()) as { kind: string }[];
    assert.deepEqual(configs.map((c) => c.kind), ['ServiceEntry']);
  });

  it('given an edited file should move the calls to the new endpoint', async () => {
    writeFileSync(join(dir, 'service.yaml'), serviceYaml(second.port));
    await until(async () => {
      const r = await callOnce(client);
      return r.ok && r.backend === 'echo-2';
    }, 'calls on the edited endpoint');
  });
});
