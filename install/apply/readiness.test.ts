import assert from 'node:assert/strict';
import { readiness } from './readiness.js';

describe('readiness', () => {
  const cases: { name: string; kind: string; live: Record<string, unknown>; ready: boolean; why?: RegExp }[] = [
    {
      name: 'given a Deployment with every replica updated and available, should be ready',
      kind: 'Deployment',
      live: { metadata: { generation: 2 }, spec: { replicas: 2 }, status: { observedGeneration: 2, updatedReplicas: 2, availableReplicas: 2 } },
      ready: true,
    },
    {
      name: 'given a Deployment whose generation is not observed yet, should not be ready',
      kind: 'Deployment',
      live: { metadata: { generation: 3 }, spec: { replicas: 1 }, status: { observedGeneration: 2, updatedReplicas: 1, availableReplicas: 1 } },
      ready: false,
      why: /generation not observed/,
    },
    {
      name: 'given a Deployment with 1 of 2 replicas available, should not be ready and say so',
      kind: 'Deployment',
      live: { metadata: { generation: 1 }, spec: { replicas: 2 }, status: { observedGeneration: 1, updatedReplicas: 2, availableReplicas: 1 } },
      ready: false,
      why: /1\/2 replicas available/,
    },
    {
      name: 'given a Deployment without status, should not be ready',
      kind: 'Deployment',
      live: { metadata: { generation: 1 }, spec: {} },
      ready: false,
    },
    {
      name: 'given an Established CRD, should be ready',
      kind: 'CustomResourceDefinition',
      live: { status: { conditions: [{ type: 'NamesAccepted', status: 'True' }, { type: 'Established', status: 'True' }] } },
      ready: true,
    },
    {
      name: 'given a CRD not yet Established, should not be ready',
      kind: 'CustomResourceDefinition',
      live: { status: { conditions: [{ type: 'Established', status: 'False' }] } },
      ready: false,
      why: /not Established/,
    },
    { name: 'given a webhook configuration that exists, should be ready', kind: 'MutatingWebhookConfiguration', live: { webhooks: [] }, ready: true },
    {
      name: 'given a DaemonSet with all scheduled pods available, should be ready',
      kind: 'DaemonSet',
      live: { metadata: { generation: 1 }, status: { observedGeneration: 1, desiredNumberScheduled: 3, numberAvailable: 3 } },
      ready: true,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = readiness(c.kind, c.live);
      assert.equal(r.ready, c.ready, r.why);
      if (c.why) assert.match(r.why, c.why);
    });
  }
});
