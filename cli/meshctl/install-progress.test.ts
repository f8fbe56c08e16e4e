import assert from 'node:assert/strict';
import type { ManifestObject } from '../../install/index.js';
import { plainProgress } from './install-progress.js';

const obj = (component: string, kind: string, name: string): ManifestObject => ({ component, apiVersion: 'v1', kind, name, namespace: 'mesh-system', object: {} });

describe('plainProgress', () => {
  it('given apply events, should print a component once when it starts, each new wait, and installed when all its objects are ready', () => {
    let out = '';
    const objects = [obj('Base', 'ConfigMap', 'a'), obj('Pilot', 'Deployment', 'meshd'), obj('Pilot', 'Service', 'meshd')];
    const view = plainProgress(objects, { write: (t: string) => (out += t) });
    view.update({ component: 'Base', phase: 'applied', object: 'ConfigMap mesh-system/a', detail: '' });
    view.update({ component: 'Pilot', phase: 'applied', object: 'Deployment mesh-system/meshd', detail: '' });
    view.update({ component: 'Pilot', phase: 'applied', object: 'Service mesh-system/meshd', detail: '' });
    view.update({ component: 'Base', phase: 'ready', object: 'ConfigMap mesh-system/a', detail: '' });
    view.update({ component: 'Pilot', phase: 'waiting', object: 'Deployment mesh-system/meshd', detail: '0/1 replicas available' });
    view.update({ component: 'Pilot', phase: 'waiting', object: 'Deployment mesh-system/meshd', detail: '0/1 replicas available' });
    view.update({ component: 'Pilot', phase: 'ready', object: 'Service mesh-system/meshd', detail: '' });
    view.update({ component: 'Pilot', phase: 'ready', object: 'Deployment mesh-system/meshd', detail: '' });
    view.update({ component: 'Pilot', phase: 'pruned', object: 'HorizontalPodAutoscaler mesh-system/meshd', detail: '' });
    view.close();
    assert.equal(
      out,
      [
        '- Processing resources for Base.',
        '- Processing resources for Pilot.',
        '✔ Base installed',
        '  Waiting for Deployment mesh-system/meshd: 0/1 replicas available',
        '✔ Pilot installed',
        '  Removed HorizontalPodAutoscaler mesh-system/meshd.',
        '',
      ].join('\n'),
    );
  });

  it('given a failure, should print the component and the reason', () => {
    let out = '';
    const view = plainProgress([obj('Pilot', 'Deployment', 'meshd')], { write: (t: string) => (out += t) });
    view.update({ component: 'Pilot', phase: 'failed', object: 'Deployment mesh-system/meshd', detail: 'Conflict' });
    assert.match(out, /✘ Pilot failed: Deployment mesh-system\/meshd: Conflict/);
  });
});
