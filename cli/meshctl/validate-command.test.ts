import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bufferIo, runCli } from '../framework/index.js';
import { meshctlCommand } from './meshctl-command.js';
import { validateText } from './validate-run.js';

const VS = `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: echo, namespace: demo }
spec:
  hosts: [echo.demo.svc.cluster.local]
  http:
  - route:
    - destination: { host: echo.demo.svc.cluster.local, subset: v1 }
      weight: 0
    - destination: { host: echo.demo.svc.cluster.local, subset: v2 }
      weight: 0
`;
const GOOD = VS.replace('weight: 0', 'weight: 70').replace('weight: 0', 'weight: 20');
const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: { name: echo }
`;

describe('meshctl validate', () => {
  const cases: { name: string; text: string; check: (r: ReturnType<typeof validateText>) => void }[] = [
    {
      name: 'given weights that add up to 0 should name the field',
      text: VS,
      check: (r) => {
        assert.equal(r.length, 1);
        assert.equal(r[0]!.what, 'VirtualService demo/echo');
        assert.match(r[0]!.errors.join('\n'), /spec\.http\[0\]\.route: total destination weight = 0/);
      },
    },
    {
      name: 'given weights that do not add up to 100 should take them as relative weights (as Istio does)',
      text: GOOD,
      check: (r) => assert.deepEqual(r.map((d) => d.errors.length), [0]),
    },
    {
      name: 'given a document of another API group should skip it',
      text: `${DEPLOYMENT}---\n${GOOD}`,
      check: (r) => assert.deepEqual(r.map((d) => [d.document, d.skipped]), [[1, true], [2, false]]),
    },
    {
      name: 'given broken YAML should report it with the document number',
      text: `${GOOD}---\nkind: [unclosed\n`,
      check: (r) => {
        assert.equal(r[1]!.document, 2);
        assert.match(r[1]!.errors[0]!, /^YAML: /);
      },
    },
  ];
  for (const c of cases) it(c.name, () => c.check(validateText(c.text, 'f.yaml')));

  const limited: { name: string; text: string; error: RegExp; what?: string }[] = [
    { name: 'given an unresolved alias should report it, not throw', text: `${GOOD.replace('spec:', 'spec: *nope\nx:')}`, error: /^YAML: Unresolved alias.*nope$/, what: 'VirtualService demo/echo' },
    { name: 'given a billion-laughs document should stop at the alias limit', text: `a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n${'bcdefghi'.split('').map((n, i) => `${n}: &${n} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(', ')}]`).join('\n')}\n`, error: /aliases expand to too many nodes/ },
    { name: 'given a duplicate key should report it with its line', text: GOOD.replace('kind: VirtualService', 'kind: VirtualService\nkind: Gateway'), error: /^YAML: duplicate key "kind" \(line 3\)$/ },
  ];
  for (const c of limited) {
    it(c.name, () => {
      const [r, ...rest] = validateText(c.text, 'f.yaml');
      assert.equal(rest.length, 0);
      assert.match(r!.errors.join('\n'), c.error);
      if (c.what) assert.equal(r!.what, c.what);
    });
  }

  it('given a file over the size limit should refuse the file as a whole', () => {
    const r = validateText(GOOD, 'f.yaml', { maxFileBytes: 100, maxDocuments: 10, maxKeys: 100, maxAliasCount: 100 });
    assert.deepEqual(r.map((d) => [d.document, d.errors[0]]), [[0, `file is ${Buffer.byteLength(GOOD)} bytes, more than 100 (limit maxFileBytes)`]]);
  });

  describe('as a command', () => {
    let dir: string;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'meshctl-validate-'));
      writeFileSync(join(dir, 'good.yaml'), GOOD);
      writeFileSync(join(dir, 'bad.yaml'), VS);
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('given a directory with one bad file should print where it is wrong and exit 1', async () => {
      const io = bufferIo();
      assert.equal(await runCli(meshctlCommand(), ['validate', '-f', dir], io), 1);
      assert.match(io.err(), /bad\.yaml document 1 \(VirtualService demo\/echo\): spec\.http\[0\]/);
      assert.match(io.out(), /good\.yaml" is valid/);
      assert.doesNotMatch(io.out(), /bad\.yaml" is valid/);
    });

    it('given only good files should exit 0', async () => {
      const io = bufferIo();
      assert.equal(await runCli(meshctlCommand(), ['v', '-f', join(dir, 'good.yaml')], io), 0);
    });

    it('given an Istio apiVersion should report it as invalid naming the mesh.io group, and exit 1', async () => {
      const f = join(dir, 'istio.yaml');
      writeFileSync(f, GOOD.replace('networking.mesh.io/v1', 'networking.istio.io/v1beta1'));
      const io = bufferIo();
      assert.equal(await runCli(meshctlCommand(), ['validate', '-f', f], io), 1);
      assert.match(io.err(), /istio\.yaml document 1 \(VirtualService demo\/echo\): apiVersion: "networking\.istio\.io\/v1beta1" is Istio's API group, which meshd does not serve: use "networking\.mesh\.io\/v1beta1"/);
      assert.doesNotMatch(io.out(), /is valid|skipped/);
    });

    it('given a schema error and a semantic error in one document should list both, and -x=false only the semantic one', async () => {
      const f = join(dir, 'both.yaml');
      writeFileSync(f, VS.replace('spec:', 'spec:\n  notAField: 1'));
      const io = bufferIo();
      assert.equal(await runCli(meshctlCommand(), ['validate', '-f', f], io), 1);
      assert.match(io.err(), /spec\.notAField: unknown field/);
      assert.match(io.err(), /spec\.http\[0\]\.route: total destination weight = 0/);
      const semantic = bufferIo();
      assert.equal(await runCli(meshctlCommand(), ['validate', '-x=false', '-f', f], semantic), 1);
      assert.doesNotMatch(semantic.err(), /notAField/);
      assert.match(semantic.err(), /total destination weight = 0/);
    });

    it('given -o json should print one report per document with file, document, resource and errors', async () => {
      const io = bufferIo();
      assert.equal(await runCli(meshctlCommand(), ['validate', '-o', 'json', '-f', dir], io), 1);
      const list = JSON.parse(io.out()) as { file: string; document: number; resource: string; valid: boolean; errors: string[] }[];
      const bad = list.find((r) => r.file.endsWith('bad.yaml'))!;
      assert.deepEqual([bad.document, bad.resource, bad.valid], [1, 'VirtualService demo/echo', false]);
      assert.match(bad.errors.join('\n'), /spec\.http\[0\]\.route/);
      assert.equal(list.find((r) => r.file.endsWith('good.yaml'))!.valid, true);
    });

    it('given no file should say how to give one and exit non-zero', async () => {
      const io = bufferIo();
      assert.notEqual(await runCli(meshctlCommand(), ['validate'], io), 0);
      assert.match(io.err(), /no file to validate/);
    });
  });
});
