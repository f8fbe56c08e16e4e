/**
 * A proxyless gRPC client for tests: with GRPC_XDS_BOOTSTRAP set to the agent's bootstrap, it registers
 * @grpc/grpc-js-xds and dials `xds:///<target>` (argv[2]), which makes grpc-js-xds open its ADS stream
 * as the bootstrap says. It waits up to argv[3] ms for the channel, prints the outcome, and exits.
 */
import * as grpc from '@grpc/grpc-js';
import * as xds from '@grpc/grpc-js-xds';

xds.register();
const target = process.argv[2]!;
const waitMs = Number(process.argv[3] ?? '3000');
const client = new grpc.Client(`xds:///${target}`, grpc.credentials.createInsecure());
client.waitForReady(Date.now() + waitMs, (err) => {
  process.stdout.write(`${err ? `not ready: ${err.message}` : 'ready'}\n`);
  client.close();
  process.exit(0);
});
