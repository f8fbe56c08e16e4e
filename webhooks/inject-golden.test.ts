import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { injectorSettingsFrom, SidecarInjector } from './sidecar-injector.js';
import { injectManifests } from './workload-inject.js';

// NOTE: tests run from dist/webhooks/; the inputs and goldens are committed in webhooks/testdata/inject/.
const DIR = fileURLToPath(new URL('../../webhooks/testdata/inject/', import.meta.url));
const UPDATE = process.env['UPDATE_GOLDEN'] === '1';

const read = (f: string): string | undefined => (existsSync(`${DIR}${f}`) ? readFileSync(`${DIR}${f}`, 'utf8') : undefined);

const cases = [
  { name: 'deployment', about: 'a Deployment: sidecar, probes rewritten to 15020, Prometheus merged' },
  { name: 'workloads', about: 'StatefulSet, Job, CronJob (TPROXY), DaemonSet on the host network (skipped), a Service (passed through)' },
  { name: 'list-and-opt-out', about: 'a List: opt-out annotation, label over annotation, an injected pod left alone' },
  { name: 'traffic-annotations', about: 'traffic.sidecar.mesh.io/* to mesh-iptables args, resources, proxy.mesh.io/config, the pod\'s own mesh-proxy fields' },
  { name: 'templates-annotation', about: 'inject.mesh.io/templates: grpc-agent, grpc-simple, gateway' },
  { name: 'native-sidecar', about: 'native sidecars (init container with restartPolicy Always) and the per-pod opt-out', native: true },
  { name: 'custom-config', about: 'policy disabled with alwaysInjectSelector, aliases, a custom template, values, mesh config, revision' },
];

describe('orch-inject golden files (webhooks/testdata/inject)', () => {
  for (const c of cases) {
    it(`given ${c.name}.yaml (${c.about}) should inject as ${c.name}.golden.yaml`, async () => {
      const settings = injectorSettingsFrom(
        { config: read(`${c.name}.inject-config.yaml`), values: read(`${c.name}.values.yaml`), meshConfig: read(`${c.name}.mesh-config.yaml`) },
        { nativeSidecars: c.native ?? false },
      );
      const { text } = await injectManifests(read(`${c.name}.yaml`)!, new SidecarInjector(settings), `${c.name}.yaml`);
      if (UPDATE) writeFileSync(`${DIR}${c.name}.golden.yaml`, text);
      const golden = read(`${c.name}.golden.yaml`);
      assert.ok(golden !== undefined, `${c.name}.golden.yaml is missing: run with UPDATE_GOLDEN=1`);
      assert.equal(text, golden);
    });
  }
});
