import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bufferIo, runCli } from '../framework/index.js';
import { meshctlCommand } from './meshctl-command.js';
import { validateText } from './validate-command.js';

const VS = `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: echo, namespace: demo }
spec:
  hosts: [echo.demo.svc.cluster.local]
  http:
  - route:
    - destination: { host: echo.demo.svc.cluster.local, subset: v1 }
      weight: 70
    - destination: { host: echo.demo.svc.cluster.local, subset: v2 }
      weight: 20
`;
const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: { name: echo }
`;

describe('meshctl validate', () => {
  const cases: { name: string; text: string; check: (r: ReturnType<typeof validateText>) => void }[] = [
    {
      name: 'given weights that do not add up to 100 should name the field',
      text: VS,
      check: (r) => {
        assert.equal(r.length, 1);
        assert.equal(r[0]!.what, 'VirtualService demo/echo');
        assert.match(r[0]!.errors.join('\n'), /spec\.http\[0\]/);
      },
    },
    {
      name: 'given a valid document should report no error',
      text: VS.replace('weight: 70', 'weight: 80'),
      check: (r) => assert.deepEqual(r.map((d) => d.errors.length), [0]),
    },
    {
      name: 'given a document of another API group should skip it',
      text: `${DEPLOYMENT}---\n${VS.replace('weight: 70', 'weight: 80')}`,
      check: (r) => assert.deepEqual(r.map((d) => [d.document, d.skipped]), [[1, true], [2, false]]),
    },
    {
      name: 'given broken YAML should report it with the document number',
      text: `${VS.replace('weight: 70', 'weight: 80')}---\nkind: [unclosed\n`,
      check: (r) => {
        assert.equal(r[1]!.document, 2);
        assert.match(r[1]!.errors[0]!, /^YAML: /);
      },
    },
  ];
  for (const c of cases) it(c.name, () => c.check(validateText(c.text, 'f.yaml')));

  describe('as a command', () => {
    let dir: string;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'meshctl-validate-'));
      writeFileSync(join(dir, 'good.yaml'), VS.replace('weight: 70', 'weight: 80'));
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

    it('given no file should say how to give one and exit non-zero', async () => {
      const io = bufferIo();
      assert.notEqual(await runCli(meshctlCommand(), ['validate'], io), 0);
      assert.match(io.err(), /no file to validate/);
    });
  });
});
