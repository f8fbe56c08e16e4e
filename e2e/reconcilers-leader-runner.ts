// A tiny process for the leader-election e2e test: campaigns for one Lease and prints one JSON line per
// change of leadership. SIGTERM stops it cleanly (releasing the lease); SIGKILL is the crash case.
//
//   node dist/e2e/reconcilers-leader-runner.js <kubeconfig> <namespace> <lease> <identity> <leaseMs> <renewMs> <retryMs>
import { KubeConfig } from '@kubernetes/client-node';
import { OrchClient } from '../controllers/index.js';
import { LeaderElector } from '../reconcilers/index.js';

const [kubeconfig, namespace, name, identity, leaseMs, renewMs, retryMs] = process.argv.slice(2);
if (!kubeconfig || !namespace || !name || !identity || !leaseMs || !renewMs || !retryMs) {
  process.stderr.write('usage: reconcilers-leader-runner <kubeconfig> <namespace> <lease> <identity> <leaseMs> <renewMs> <retryMs>\n');
  process.exit(2);
}
const kc = new KubeConfig();
kc.loadFromFile(kubeconfig);
const elector = new LeaderElector({
  client: new OrchClient(kc, { qps: 50, burst: 100, contentType: 'json' }),
  namespace,
  name,
  identity,
  leaseDurationMs: Number(leaseMs),
  renewDeadlineMs: Number(renewMs),
  retryPeriodMs: Number(retryMs),
});
const say = (event: string): void => {
  process.stdout.write(`${JSON.stringify({ event, identity, pid: process.pid })}\n`);
};
elector.leading$.subscribe((leading) => say(leading ? 'leading' : 'not-leading'));
// NOTE: the elector's timers are unref'd (they never keep a program alive); this process exists only to campaign.
const keepAlive = setInterval(() => undefined, 60_000);
elector.start();
process.once('SIGTERM', () => {
  void elector.stop().then(() => {
    say('stopped');
    clearInterval(keepAlive);
    process.exit(0);
  });
});
