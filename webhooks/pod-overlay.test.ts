import assert from 'node:assert/strict';
import { overlay } from './pod-overlay.js';

describe('overlay (rendered template into a pod)', () => {
  const pod = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'app', image: 'a', env: [{ name: 'X', value: '1' }] }], volumes: [{ name: 'v', emptyDir: {} }] } };
  const cases = [
    { name: 'an empty containers section (null)', patch: { spec: { containers: null } }, want: pod },
    { name: 'a new container', patch: { spec: { containers: [{ name: 'mesh-proxy', image: 'p' }] } }, want: { ...pod, spec: { ...pod.spec, containers: [...pod.spec.containers, { name: 'mesh-proxy', image: 'p' }] } } },
    { name: 'env for an existing container', patch: { spec: { containers: [{ name: 'app', env: [{ name: 'Y', value: '2' }, { name: 'X', value: '3' }] }] } }, want: { ...pod, spec: { ...pod.spec, containers: [{ name: 'app', image: 'a', env: [{ name: 'X', value: '3' }, { name: 'Y', value: '2' }] }] } } },
    { name: 'a label', patch: { metadata: { labels: { b: 'c' } } }, want: { ...pod, metadata: { labels: { app: 'a', b: 'c' } } } },
  ];
  for (const c of cases) {
    it(`given ${c.name} should merge as the injector does`, () => {
      assert.deepEqual(overlay(pod, c.patch), c.want);
    });
  }
});
