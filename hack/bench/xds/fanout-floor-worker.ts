/**
 * Worker thread of `npm run bench:fanout`: opens its share of the fan-out clients (one grpc-js channel and one
 * bidi stream each, as the xDS bench clients), records when each receives the round's message, optionally
 * answers every message with a pre-encoded ACK-sized reply (as a proxy ACKs), and reports per round.
 * Messages are `FloorCommand` in and `FloorEvent` out.
 */
import * as grpc from '@grpc/grpc-js';
import { parentPort, workerData } from 'node:worker_threads';
import { installPooledDecoder, releaseMessage } from './pooled-decoder.js';
import { FLOOR_METHOD, floorNow, type FloorCommand, type FloorEvent, type FloorWorkerInit } from './fanout-floor.js';

const identity = (b: Buffer): Buffer => b;

function main(): void {
  const port = parentPort;
  if (!port) throw new Error('fanout-floor-worker must run as a worker thread');
  const init = workerData as FloorWorkerInit;
  const post = (e: FloorEvent): void => port.postMessage(e);
  // NOTE: the same reassembly as the xDS bench clients (client-worker.ts), so the floor stays theirs.
  if (!installPooledDecoder()) throw new Error('fanout-floor-worker: grpc-js StreamDecoder.write is not where pooled-decoder.ts expects it');
  const ack = Buffer.alloc(init.ackBytes, 0x61);
  const hello = Buffer.from('hello');
  const clients: grpc.Client[] = [];
  const calls: grpc.ClientDuplexStream<Buffer, Buffer>[] = [];
  const arrivals: (number | undefined)[] = [];
  let round = -1;
  let arrived = 0;
  let opened = 0;
  let next = 0;
  let connecting = 0;
  let loopAtArm = performance.eventLoopUtilization();

  const openOne = (): void => {
    const i = next++;
    connecting++;
    const client = new grpc.Client(init.address, grpc.credentials.createInsecure(), {
      'grpc.use_local_subchannel_pool': 1,
      'grpc.max_receive_message_length': -1,
      'grpc.enable_channelz': 0,
    });
    const call = client.makeBidiStreamRequest(FLOOR_METHOD, identity, identity);
    clients.push(client);
    calls.push(call);
    arrivals.push(undefined);
    let first = true;
    call.on('data', (b: Buffer) => {
      const t = floorNow();
      releaseMessage(b);
      if (first) {
        // NOTE: the server answers the hello once it holds the stream: the stream counts as open then.
        first = false;
        connecting--;
        opened++;
        if (opened === init.clients) post({ ev: 'open' });
        else while (next < init.clients && connecting < init.maxConnecting) openOne();
        return;
      }
      if (ack.length > 0) call.write(ack);
      if (arrivals[i] !== undefined || round < 0) return;
      arrivals[i] = t;
      if (++arrived === init.clients) {
        const elu = performance.eventLoopUtilization(loopAtArm);
        post({ ev: 'arrived', round, times: arrivals as number[], busyMs: elu.active });
      }
    });
    call.on('error', () => undefined);
    call.write(hello);
  };

  port.on('message', (c: FloorCommand) => {
    if (c.cmd === 'arm') {
      round = c.round;
      arrived = 0;
      arrivals.fill(undefined);
      loopAtArm = performance.eventLoopUtilization();
      post({ ev: 'armed', round });
      return;
    }
    for (const call of calls) call.cancel();
    for (const client of clients) client.close();
    post({ ev: 'closed' });
    port.close();
  });
  while (next < init.clients && connecting < init.maxConnecting) openOne();
}

main();
