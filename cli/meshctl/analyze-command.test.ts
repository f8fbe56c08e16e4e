import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { bufferIo, runCli } from '../framework/index.js';
import { meshctlCommand } from './meshctl-command.js';
import { LEVELS } from '../../analysis/index.js';
import { ANALYZE_LEVELS } from './analyze-command.js';
import { EXIT_ANALYZE_FOUND_ISSUES } from './exit-codes.js';

const VS_MISSING_HOST = `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: reviews, namespace: default }
spec:
  hosts: [reviews]
  http:
  - route:
    - destination: { host: reviews }
`;
const SERVICE = `apiVersion: v1
kind: Service
metadata: { name: reviews, namespace: default }
spec:
  selector: { app: reviews }
  ports: [{ name: http, port: 9080 }]
`;
const BADLY_NAMED_SERVICE = SERVICE.replace('name: http,', 'name: web,');
const NAMESPACES = `apiVersion: v1
kind: Namespace
metadata: { name: default }
---
apiVersion: v1
kind: Namespace
metadata: { name: other }
`;

describe('meshctl analyze', () => {
  let dir: string;
  const file = (name: string, text: string): string => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const run = async (...args: string[]): Promise<{ code: number; out: string; err: string }> => {
    const io = bufferIo({ TERM: 'dumb' });
    const code = await runCli(meshctlCommand(), ['analyze', ...args], io);
    return { code, out: io.out(), err: io.err() };
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'meshctl-analyze-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('given a VirtualService to a missing host should print the log line with file and line and exit 79', async () => {
    const f = file('vs.yaml', `# comment\n${VS_MISSING_HOST}`);
    const r = await run('--use-orch=false', f);
    assert.equal(r.code, EXIT_ANALYZE_FOUND_ISSUES);
    assert.equal(r.out, `Error [IST0101] (VirtualService default/reviews ${f}:2) Referenced host not found: "reviews"\n`);
    assert.match(r.err, /Analyzers found issues when analyzing namespace: default/);
  });

  it('given the service in another file should find no issue and exit 0', async () => {
    const r = await run('-k=false', file('vs.yaml', VS_MISSING_HOST), file('svc.yaml', SERVICE));
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, '');
    assert.match(r.err, /No validation issues found when analyzing namespace: default/);
  });

  it('given an Info finding should exit 0 by default and 79 with --failure-threshold Info', async () => {
    const f = file('svc.yaml', BADLY_NAMED_SERVICE);
    const plain = await run('--use-orch=false', f);
    assert.equal(plain.code, 0);
    assert.match(plain.out, /^Info \[IST0118\] \(Service default\/reviews/);
    const strict = await run('--use-orch=false', '--failure-threshold', 'Info', f);
    assert.equal(strict.code, EXIT_ANALYZE_FOUND_ISSUES);
  });

  it('given --output-threshold Error should hide an Info finding', async () => {
    const r = await run('--use-orch=false', '--output-threshold=Error', file('svc.yaml', BADLY_NAMED_SERVICE));
    assert.equal(r.out, '');
    assert.equal(r.code, 0);
  });

  const suppressions: { name: string; value: string; hidden: boolean }[] = [
    { name: 'given an exact suppression should hide the finding', value: 'IST0101=VirtualService default/reviews', hidden: true },
    { name: 'given the legacy name.namespace form should hide the finding', value: 'IST0101=VirtualService reviews.default', hidden: true },
    { name: 'given a wildcard suppression should hide the finding', value: 'IST0101=VirtualService *', hidden: true },
    { name: 'given a suppression of another code should not hide it', value: 'IST0102=VirtualService *', hidden: false },
    { name: 'given a suppression of another resource should not hide it', value: 'IST0101=VirtualService default/ratings', hidden: false },
  ];
  for (const s of suppressions) {
    it(s.name, async () => {
      const r = await run('--use-orch=false', '-S', s.value, file('vs.yaml', VS_MISSING_HOST));
      assert.equal(r.code, s.hidden ? 0 : EXIT_ANALYZE_FOUND_ISSUES);
      assert.equal(r.out.includes('IST0101'), !s.hidden);
    });
  }

  it('given a suppression without = should be a clear error', async () => {
    const r = await run('--use-orch=false', '-S', 'IST0101', file('vs.yaml', VS_MISSING_HOST));
    assert.equal(r.code, 1);
    assert.match(r.err, /--suppress "IST0101": expected <code>=<resource>/);
  });

  for (const format of ['json', 'yaml'] as const) {
    it(`given -o ${format} should print the findings as a list of objects`, async () => {
      const f = file('vs.yaml', VS_MISSING_HOST);
      const r = await run('--use-orch=false', '-o', format, f);
      const list = (format === 'json' ? JSON.parse(r.out) : parseYaml(r.out)) as Record<string, string>[];
      assert.equal(list.length, 1);
      assert.deepEqual({ ...list[0], documentationUrl: undefined }, {
        code: 'IST0101',
        documentationUrl: undefined,
        level: 'Error',
        message: 'Referenced host not found: "reviews"',
        origin: 'VirtualService default/reviews',
        reference: `${f}:1`,
      });
      assert.match(list[0]!.documentationUrl!, /ist0101/);
    });
  }

  it('given an unknown output format should be a clear error', async () => {
    const r = await run('--use-orch=false', '-o', 'xml', file('vs.yaml', VS_MISSING_HOST));
    assert.equal(r.code, 1);
    assert.match(r.err, /--output "xml": expected one of log, json, yaml/);
  });

  it('given -L should list the analyzers with descriptions and analyze nothing', async () => {
    const r = await run('-L');
    assert.equal(r.code, 0);
    assert.match(r.out, /^Available analyzers:\n/);
    assert.match(r.out, /\* virtualservice\.DestinationHostAnalyzer:\n {4}Checks the destination hosts/);
    assert.match(r.out, /\* schema\.ValidationAnalyzer\.VirtualService:/);
  });

  it('given a directory should read its files, and with -R its subdirectories too', async () => {
    mkdirSync(join(dir, 'sub'));
    file('vs.yaml', VS_MISSING_HOST);
    file(join('sub', 'svc.yaml'), SERVICE);
    const flat = await run('--use-orch=false', dir);
    assert.equal(flat.code, EXIT_ANALYZE_FOUND_ISSUES);
    const deep = await run('--use-orch=false', '-R', dir);
    assert.equal(deep.code, 0, deep.out);
  });

  it('given findings in other namespaces should show them only with -A', async () => {
    const f = file('vs.yaml', VS_MISSING_HOST.replace('namespace: default', 'namespace: other'));
    const ns = await run('--use-orch=false', f);
    assert.equal(ns.code, 0);
    const all = await run('--use-orch=false', '-A', f);
    assert.equal(all.code, EXIT_ANALYZE_FOUND_ISSUES);
    assert.match(all.out, /VirtualService other\/reviews/);
    const named = await run('--use-orch=false', '-n', 'other', f);
    assert.equal(named.code, EXIT_ANALYZE_FOUND_ISSUES);
  });

  it('given bad YAML and an Istio apiVersion should report each by file and document, analyze the rest, and exit non-zero', async () => {
    const f = file('mixed.yaml', `${SERVICE}---\nkind: [unclosed\n---\n${VS_MISSING_HOST.replace('networking.mesh.io', 'networking.istio.io')}`);
    const r = await run('--use-orch=false', f);
    assert.equal(r.code, 1);
    assert.match(r.err, new RegExp(`Error: ${f} document 2: YAML: .*\\(line \\d+\\)`));
    assert.match(r.err, new RegExp(`Error: ${f} document 3: VirtualService reviews: apiVersion "networking.istio.io/v1" is Istio's API group; mesh serves networking.mesh.io`));
    assert.doesNotMatch(r.err, /at .*\.js:\d+/);
  });

  it('given --ignore-unknown should drop documents of unknown kinds but still report bad YAML', async () => {
    const unknown = file('unknown.yaml', 'apiVersion: example.com/v1\nkind: Widget\nmetadata: { name: w }\n');
    const r = await run('--use-orch=false', '--ignore-unknown', unknown);
    assert.equal(r.code, 0, r.err);
    const loud = await run('--use-orch=false', unknown);
    assert.equal(loud.code, 1);
    assert.match(loud.err, /Widget w: unknown kind of apiVersion "example.com\/v1"/);
  });

  it('given a --meshConfigFile should analyze with its values', async () => {
    const se = file('se.yaml', 'apiVersion: networking.mesh.io/v1\nkind: ServiceEntry\nmetadata: { name: db }\nspec:\n  hosts: [db.example.com]\n  resolution: DNS\n  ports: [{ number: 5432, name: tcp }]\n');
    const before = await run('--use-orch=false', se);
    assert.match(before.out, /IST0134/);
    const mc = file('mesh.yaml', 'defaultConfig:\n  proxyMetadata:\n    MESH_META_DNS_CAPTURE: "true"\n    MESH_META_DNS_AUTO_ALLOCATE: "true"\n');
    const after = await run('--use-orch=false', '--meshConfigFile', mc, se);
    assert.doesNotMatch(after.out, /IST0134/);
  });

  it('given a file that does not exist should be a clear error', async () => {
    const r = await run('--use-orch=false', join(dir, 'nope.yaml'));
    assert.equal(r.code, 1);
    assert.match(r.err, /cannot read .*nope\.yaml: no such file or directory/);
  });

  it('given no cluster configuration and the default use-orch should say how to analyze files only', async () => {
    const io = bufferIo({ TERM: 'dumb', HOME: dir });
    const code = await runCli(meshctlCommand(), ['analyze', file('vs.yaml', VS_MISSING_HOST)], io);
    assert.equal(code, 1);
    assert.match(io.err(), /no orchestrator configuration.*--use-orch=false/);
  });

  it('given -v should say how many resources and analyzers ran', async () => {
    const r = await run('--use-orch=false', '-v', file('ns.yaml', NAMESPACES), file('svc.yaml', SERVICE));
    assert.match(r.err, /Analyzed 3 resources \(3 from 2 file\(s\), 0 from the cluster\) with \d+ analyzers in [\d.]+ ms/);
  });

  it('given - should read standard input (as a process) and name it <stdin>', () => {
    const bin = fileURLToPath(new URL('../../../bin/meshctl', import.meta.url));
    const r = spawnSync(process.execPath, [bin, 'analyze', '-k=false', '-'], { input: `${SERVICE}---\n${VS_MISSING_HOST.replace('host: reviews }', 'host: ratings }')}`, encoding: 'utf8', env: { ...process.env, TERM: 'dumb' }, timeout: 60_000 });
    assert.equal(r.status, EXIT_ANALYZE_FOUND_ISSUES, r.stderr);
    assert.equal(r.stdout, 'Error [IST0101] (VirtualService default/reviews <stdin>:8) Referenced host not found: "ratings"\n');
  });

  it('given --color=true should colour the level, unless TERM is dumb', async () => {
    const f = file('vs.yaml', VS_MISSING_HOST);
    const io = bufferIo({ TERM: 'xterm' });
    await runCli(meshctlCommand(), ['analyze', '--use-orch=false', '--color=true', f], io);
    assert.match(io.out(), /^\x1b\[1;31mError \[IST0101\]\x1b\[0m/);
    const dumb = await run('--use-orch=false', '--color=true', f);
    assert.match(dumb.out, /^Error \[IST0101\]/);
  });
});

describe('meshctl analyze tree', () => {
  it("given analysis/'s message levels should accept exactly those in --failure-threshold and --output-threshold", () => {
    // NOTE: the tree keeps its own copy so that loading it does not load the analyzers.
    assert.deepEqual(ANALYZE_LEVELS, LEVELS);
  });
});
