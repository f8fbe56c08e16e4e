import assert from 'node:assert/strict';
import { loadEnv } from '../../core/index.js';
import { connectOrchestrator, orchConfigSourceOf } from './orch-connection.js';

describe('orchestrator connection', () => {
  const options = (vars: Record<string, string | undefined>, orchconfig = '') => ({
    env: loadEnv('pilot-discovery', vars),
    orchconfig,
    orchApiQps: 80,
    orchApiBurst: 160,
    registries: ['Orchestrator' as const],
  });
  const cases = [
    { name: 'given --orchconfig should use it over KUBECONFIG', vars: { KUBECONFIG: '/k' }, flag: '/f', want: { orchconfig: '/f' } },
    { name: 'given KUBECONFIG should use it', vars: { KUBECONFIG: '/a:/b' }, flag: '', want: { orchconfig: '', kubeconfigEnv: '/a:/b' } },
    {
      name: 'given the in-cluster service address should use it',
      vars: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '6443' },
      flag: '',
      want: { orchconfig: '', inCluster: { serviceHost: '10.0.0.1', servicePort: '6443' } },
    },
    {
      name: "given the spec's ORCH_SERVICE_HOST should prefer it to the platform's name",
      vars: { ORCH_SERVICE_HOST: 'api.local', KUBERNETES_SERVICE_HOST: '10.0.0.1' },
      flag: '',
      want: { orchconfig: '', inCluster: { serviceHost: 'api.local', servicePort: '443' } },
    },
    { name: 'given nothing should find no cluster', vars: {}, flag: '', want: undefined },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(orchConfigSourceOf(options(c.vars, c.flag)), c.want));

  it('given --registries without Orchestrator should not connect, whatever is configured', () => {
    assert.equal(connectOrchestrator({ ...options({ KUBECONFIG: '/k' }), registries: ['Mock'] }), undefined);
  });

  it('given a kubeconfig that does not exist should fail naming where it came from', () => {
    assert.throws(() => connectOrchestrator(options({ KUBECONFIG: '/nonexistent/kubeconfig' })), /KUBECONFIG/);
  });
});
