import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { closeGrpcServer } from './grpc-shutdown.js';

const PATH = '/test.Hang/Call';
const bytes = (b: Buffer): Buffer => b;

async function startServer(handler: grpc.handleUnaryCall<Buffer, Buffer>): Promise<{ server: grpc.Server; address: string }> {
  const server = new grpc.Server();
  server.register(PATH, handler, bytes, bytes, 'unary');
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p)));
  });
  return { server, address: `127.0.0.1:${port}` };
}

function call(address: string): { client: grpc.Client; done: Promise<grpc.ServiceError | null> } {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const done = new Promise<grpc.ServiceError | null>((resolve) => {
    client.makeUnaryRequest(PATH, bytes, bytes, Buffer.from('x'), (err) => resolve(err));
  });
  return { client, done };
}

describe('closeGrpcServer', () => {
  it('given a call in flight that finishes within the grace time should let it answer', async () => {
    let answer: (() => void) | undefined;
    const { server, address } = await startServer((_call, callback) => {
      answer = () => callback(null, Buffer.from('ok'));
    });
    const { client, done } = call(address);
    while (!answer) await new Promise((r) => setTimeout(r, 5));
    const closed = closeGrpcServer(server, 60_000);
    answer();
    assert.equal(await done, null);
    await closed;
    client.close();
  });

  it('given a call that never answers should cut it after the grace time and resolve', async () => {
    let started = false;
    const { server, address } = await startServer(() => {
      started = true;
    });
    const { client, done } = call(address);
    while (!started) await new Promise((r) => setTimeout(r, 5));
    await closeGrpcServer(server, 50);
    const err = await done;
    assert.ok(err, 'the hanging call fails');
    assert.notEqual(err.code, grpc.status.OK);
    client.close();
  });
});
