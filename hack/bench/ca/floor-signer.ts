// Worker body of bench:ca's floor server (floor-server.ts): holds one RSA key and signs what it is sent.
import { sign, type KeyObject } from 'node:crypto';
import { parentPort } from 'node:worker_threads';

/** First message: the key. Then jobs: bytes to sign, as a latin1 string. */
export type FloorSignerMessage = { readonly key: KeyObject } | { readonly id: number; readonly data: string };

let key: KeyObject | undefined;

parentPort?.on('message', (message: FloorSignerMessage) => {
  if ('key' in message) {
    key = message.key;
    return;
  }
  if (!key) throw new Error('floor signer: job before key');
  sign('sha256', Buffer.from(message.data, 'latin1'), key);
  parentPort!.postMessage(message.id);
});
