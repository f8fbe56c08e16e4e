import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bufferIo, runCli } from '../framework/index.js';
import { meshctlCommand } from './meshctl-command.js';

// NOTE: the golden files of webhooks/inject-golden.test.ts: the CLI must give the same bytes.
const DATA = fileURLToPath(new URL('../../../webhooks/testdata/inject/', import.meta.url));
const NO_CLUSTER = { HOME: '/nonexistent' };

describe('meshctl orch-inject', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'meshctl-orch-inject-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('given the three config files (values as a ConfigMap manifest) and -o should write the injector\'s golden output', async () => {
    const values = readFileSync(`${DATA}custom-config.values.yaml`, 'utf8');
    writeFileSync(join(dir, 'values-cm.yaml'), `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: mesh-sidecar-injector}\ndata:\n  values: ${JSON.stringify(values)}\n`);
    const out = join(dir, 'out.yaml');
    const io = bufferIo(NO_CLUSTER);
    const args = ['orch-inject', '-f', `${DATA}custom-config.yaml`, '--injectConfigFile', `${DATA}custom-config.inject-config.yaml`, '--valuesFile', join(dir, 'values-cm.yaml'), '--meshConfigFile', `${DATA}custom-config.mesh-config.yaml`, '-o', out];
    assert.equal(await runCli(meshctlCommand(), args, io), 0, io.err());
    assert.equal(readFileSync(out, 'utf8'), readFileSync(`${DATA}custom-config.golden.yaml`, 'utf8'));
    assert.match(io.err(), /skipped Pod app\/not-selected: the injection policy is disabled/);
  });

  it('given ENABLE_NATIVE_SIDECARS=true and no cluster should inject native sidecars with the built-in defaults', async () => {
    const io = bufferIo({ ...NO_CLUSTER, ENABLE_NATIVE_SIDECARS: 'true' });
    assert.equal(await runCli(meshctlCommand(), ['orch-inject', '-f', `${DATA}native-sidecar.yaml`], io), 0, io.err());
    assert.equal(io.out(), readFileSync(`${DATA}native-sidecar.golden.yaml`, 'utf8'));
    assert.match(io.err(), /using the built-in defaults/);
  });

  it('given --operatorFileName should inject with the settings the MeshOperator would install (its meshd release rendered)', async () => {
    const op = join(dir, 'op.yaml');
    writeFileSync(op, 'apiVersion: install.mesh.io/v1alpha1\nkind: MeshOperator\nspec:\n  meshConfig:\n    trustDomain: example.org\n  values:\n    global:\n      proxy:\n        logLevel: debug\n');
    const io = bufferIo(NO_CLUSTER);
    assert.equal(await runCli(meshctlCommand(), ['orch-inject', '-f', `${DATA}deployment.yaml`, '--operatorFileName', op], io), 0, io.err());
    assert.match(io.out(), /- name: TRUST_DOMAIN\n\s+value: example.org/);
    assert.match(io.out(), /--proxyLogLevel=debug/);
  });

  const bad = [
    { name: 'no -f', args: ['orch-inject'], want: /give the manifest to inject with -f/ },
    { name: 'a missing file', args: ['orch-inject', '-f', '/nonexistent/x.yaml'], want: /--filename \/nonexistent\/x.yaml: no such file/ },
    { name: 'an injection config with a bad policy', args: ['orch-inject', '-f', `${DATA}deployment.yaml`, '--injectConfigFile', 'BAD'], want: /policy: "maybe" is not "enabled" or "disabled"/ },
    { name: 'a template that does not exist', args: ['orch-inject', '-f', 'TPL'], want: /Pod app\/x: template "nope" \(annotation inject.mesh.io\/templates\) is not defined/ },
    { name: '--xds-port (a central meshd over xDS)', args: ['orch-inject', '-f', `${DATA}deployment.yaml`, '--xds-port', '15012'], want: /not implemented yet: meshctl orch-inject through a central meshd over xDS \(--xds-port\)/ },
    { name: '--operatorFileName with --injectConfigFile', args: ['orch-inject', '-f', `${DATA}deployment.yaml`, '--operatorFileName', 'op.yaml', '--injectConfigFile', 'x.yaml'], want: /--operatorFileName takes the injector settings from a MeshOperator: give it alone/ },
    { name: 'a MeshOperator with a misspelt field', args: ['orch-inject', '-f', `${DATA}deployment.yaml`, '--operatorFileName', 'BADOP'], want: /--operatorFileName .*bad-op.yaml: .*spec.components.pilot.enabld/ },
  ];
  for (const c of bad) {
    it(`given ${c.name} should fail naming the problem`, async () => {
      writeFileSync(join(dir, 'bad.yaml'), 'policy: maybe\n');
      writeFileSync(join(dir, 'tpl.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: x, namespace: app, annotations: {inject.mesh.io/templates: nope}}\nspec: {containers: [{name: a, image: a}]}\n');
      writeFileSync(join(dir, 'bad-op.yaml'), 'apiVersion: install.mesh.io/v1alpha1\nkind: MeshOperator\nspec:\n  components:\n    pilot:\n      enabld: true\n');
      const args = c.args.map((a) => (a === 'BAD' ? join(dir, 'bad.yaml') : a === 'TPL' ? join(dir, 'tpl.yaml') : a === 'BADOP' ? join(dir, 'bad-op.yaml') : a));
      const io = bufferIo(NO_CLUSTER);
      assert.equal(await runCli(meshctlCommand(), args, io), 1);
      assert.match(io.err(), c.want);
    });
  }
});
