import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { HEALTH_CHECK_PATH, HEALTH_CODEC, HEALTH_SERVICE_DEFINITION, HEALTH_WATCH_PATH, HealthService, type HealthCheckResponse } from './health-service.js';
import { bindGrpc, shutdownGrpc } from './meshd-server.js';

describe('HealthService over gRPC', () => {
  let server: grpc.Server;
  let client: grpc.Client;
  let health: HealthService;

  beforeEach(async () => {
    health = new HealthService({ '': 'SERVING', 'mesh.xds': 'NOT_SERVING' });
    server = new grpc.Server();
    server.addService(HEALTH_SERVICE_DEFINITION, health.handlers());
    const bound = await bindGrpc(server, '127.0.0.1:0', 'grpcAddr');
    client = new grpc.Client(`127.0.0.1:${bound.port}`, grpc.credentials.createInsecure());
  });

  afterEach(async () => {
    client.close();
    health.shutdown();
    await shutdownGrpc(server, 1000);
  });

  function check(service: string): Promise<HealthCheckResponse> {
    return new Promise((resolve, reject) => {
      client.makeUnaryRequest(HEALTH_CHECK_PATH, HEALTH_CODEC.encodeRequest, HEALTH_CODEC.decodeResponse, { service }, (err, res) => (err ? reject(err) : resolve(res!)));
    });
  }

  const cases: { name: string; service: string; want: HealthCheckResponse | RegExp }[] = [
    { name: 'given the whole server should answer SERVING', service: '', want: { status: 'SERVING' } },
    { name: 'given a service set NOT_SERVING should answer so', service: 'mesh.xds', want: { status: 'NOT_SERVING' } },
    { name: 'given an unknown service should answer NOT_FOUND', service: 'nope', want: /NOT_FOUND|5 /i },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      if (c.want instanceof RegExp) await assert.rejects(check(c.service), (e: grpc.ServiceError) => e.code === grpc.status.NOT_FOUND);
      else assert.deepEqual(await check(c.service), c.want);
    });
  }

  it('given a watcher should stream the current state then each change', async () => {
    const call = client.makeServerStreamRequest(HEALTH_WATCH_PATH, HEALTH_CODEC.encodeRequest, HEALTH_CODEC.decodeResponse, { service: 'mesh.xds' });
    const seen: string[] = [];
    const done = new Promise<void>((resolve) => {
      call.on('data', (m: HealthCheckResponse) => {
        seen.push(m.status);
        if (seen.length === 1) health.setStatus('mesh.xds', 'SERVING');
        if (seen.length === 2) resolve();
      });
    });
    const ended = new Promise<number>((resolve) => call.on('error', (e: grpc.ServiceError) => resolve(e.code)));
    await done;
    call.cancel();
    assert.equal(await ended, grpc.status.CANCELLED);
    assert.deepEqual(seen, ['NOT_SERVING', 'SERVING']);
  });
});
