/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk parsed documents */
import assert from 'node:assert/strict';
import { parseConfigYaml, type ParsedDocument } from './parse-config-yaml.js';
import { DEFAULT_YAML_LIMITS, objectLimitError } from './yaml-limits.js';
import { YamlWorkerParser } from './yaml-worker-parser.js';

/** A "billion laughs" document: nine levels of nine aliases each. */
export function billionLaughs(): string {
  let s = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
  let prev = 'a';
  for (const n of 'bcdefghi') {
    s += `${n}: &${n} [${Array(9).fill(`*${prev}`).join(',')}]\n`;
    prev = n;
  }
  return s;
}

/** One mapping with `n` distinct keys. */
function manyKeys(n: number): string {
  const lines = ['spec:'];
  for (let i = 0; i < n; i++) lines.push(`  k${i}: ${i}`);
  return `${lines.join('\n')}\n`;
}

function docs(text: string, limits = DEFAULT_YAML_LIMITS): readonly ParsedDocument[] {
  const r = parseConfigYaml(text, limits);
  assert.ok(r.ok, `expected the file to parse, got: ${r.ok ? '' : r.error}`);
  return r.documents;
}

const SMALL = { maxFileBytes: 10_000, maxDocuments: 3, maxKeys: 5, maxAliasCount: 100 };

describe('parseConfigYaml', () => {
  const refused: { name: string; text: string; error: RegExp; kind?: string; name2?: string }[] = [
    { name: 'given an unresolved alias should refuse that document, naming the alias', text: 'a: *nope', error: /Unresolved alias.*nope/ },
    { name: 'given a billion-laughs document should refuse it at the alias limit', text: billionLaughs(), error: /aliases expand to too many nodes \(limit maxAliasCount 100\)/ },
    { name: 'given a duplicate key should refuse the document naming the key and line', text: 'kind: VirtualService\nmetadata: { name: x }\nkind: Gateway\n', error: /duplicate key "kind" \(line 3\)/, kind: 'VirtualService', name2: 'x' },
    { name: 'given a collection as a mapping key should refuse the document', text: '? [a]\n: 1\n', error: /mapping keys must be plain values, not collections/ },
    { name: 'given broken YAML should refuse the document with the line', text: 'kind: [unclosed', error: /^YAML: .* \(line 1\)$/ },
    // NOTE: a regression seed found by fuzzing: the refusal said "Maximum call stack size exceeded".
    { name: 'given flow sequences nested 3,000 deep should refuse the document saying it is nested too deeply', text: `${'['.repeat(3000)}${']'.repeat(3000)}`, error: /^YAML: nested too deeply \(collections inside collections.*\(line 1\)$/ },
  ];
  for (const c of refused) {
    it(c.name, () => {
      const [d, ...rest] = docs(c.text);
      assert.equal(rest.length, 0);
      assert.match(d?.error ?? '', c.error);
      assert.equal(d?.value, undefined);
      if (c.kind) assert.equal(d?.kind, c.kind);
      if (c.name2) assert.equal(d?.name, c.name2);
    });
  }

  describe('YAML 1.1 booleans (as istiod reads files: sigs.k8s.io/yaml on go-yaml v2)', () => {
    const dr = (v: string): string => `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: r, namespace: default }
spec:
  host: reviews
  trafficPolicy: { tls: { mode: SIMPLE, insecureSkipVerify: ${v} } }
`;
    const skipVerify = (v: string): ParsedDocument => {
      const r = parseConfigYaml(dr(v), DEFAULT_YAML_LIMITS, { validate: { defaultNamespace: 'default' } });
      assert.ok(r.ok);
      return r.documents[0]!;
    };
    const cases: { value: string; want: boolean | string }[] = [
      ...['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'true', 'True', 'TRUE'].map((value) => ({ value, want: true })),
      ...['n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF', 'false', 'False', 'FALSE'].map((value) => ({ value, want: false })),
    ];
    for (const c of cases) {
      it(`given an unquoted ${c.value} where a bool is expected should accept it as ${String(c.want)}`, () => {
        const d = skipVerify(c.value);
        assert.equal(d.validation?.ok, true, JSON.stringify(d.validation));
        assert.equal((d.value as any).spec.trafficPolicy.tls.insecureSkipVerify, c.want);
      });
    }
    for (const value of ['"yes"', "'on'", 'yEs', 'oN', 'nO']) {
      it(`given ${value} (quoted or not a YAML 1.1 boolean) where a bool is expected should refuse it naming the field`, () => {
        const d = skipVerify(value);
        assert.equal(d.validation?.ok, false);
        assert.deepEqual(d.validation?.ok === false && d.validation.errors.map((e) => [e.path, e.message]), [['spec.trafficPolicy.tls.insecureSkipVerify', `must be of type boolean, got ${JSON.stringify(value.replace(/^["']|["']$/g, ''))}`]]);
      });
    }
    it('given an unquoted yes where a string is expected should refuse it naming the field and saying to quote it; quoted, accept it', () => {
      const se = (v: string): string => `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: s, namespace: default }
spec:
  hosts: [a.example.com]
  ports: [{ number: 80, name: http, protocol: HTTP }]
  resolution: DNS
  workloadSelector: { labels: { enabled: ${v} } }
`;
      const r = parseConfigYaml(`${se('yes')}---\n${se('"yes"')}`, DEFAULT_YAML_LIMITS, { validate: { defaultNamespace: 'default' } });
      assert.ok(r.ok);
      const [bad, good] = r.documents;
      assert.deepEqual(bad?.validation?.ok === false && bad.validation.errors.map((e) => [e.path, e.message]), [
        ['spec.workloadSelector.labels.enabled', 'must be of type string, got true (unquoted yes/no/on/off/y/n/true/false are booleans in YAML: quote the value)'],
      ]);
      assert.equal(good?.validation?.ok, true);
      assert.equal((good?.value as any).spec.workloadSelector.labels.enabled, 'yes');
    });
  });

  it('given three documents with comments and separators should give each the line where its content starts', () => {
    const r = parseConfigYaml('# head\nkind: A\n---\n\n# note\nkind: B\n---\nkind: C\n');
    assert.ok(r.ok);
    assert.deepEqual(r.documents.map((d) => d.line), [2, 6, 8]);
  });

  it('given an unresolved alias in one document of three should keep the other two, and name the bad one', () => {
    const r = docs('kind: A\n---\nkind: VirtualService\nmetadata: { name: echo, namespace: qs }\nspec: *nope\n---\nkind: C\n');
    assert.deepEqual(r.map((d) => d.value), [{ kind: 'A' }, undefined, { kind: 'C' }]);
    assert.deepEqual([r[1]!.document, r[1]!.kind, r[1]!.name, r[1]!.namespace], [2, 'VirtualService', 'echo', 'qs']);
  });

  it('given a document over maxKeys should refuse it without parsing it and keep the next document', () => {
    const r = docs(`${manyKeys(6)}---\nkind: after\n`, SMALL);
    assert.match(r[0]!.error ?? '', /more than 5 mapping keys \(limit maxKeys\)/);
    assert.deepEqual(r[1]!.value, { kind: 'after' });
  });

  it('given more documents than maxDocuments should refuse the whole file', () => {
    const r = parseConfigYaml('a: 1\n---\nb: 1\n---\nc: 1\n---\nd: 1\n', SMALL);
    assert.deepEqual(r, { ok: false, error: 'file has more than 3 documents (limit maxDocuments)' });
  });

  it('given a file over maxFileBytes should refuse it unparsed', () => {
    const r = parseConfigYaml(Buffer.from(manyKeys(2000)), SMALL);
    assert.ok(!r.ok && /more than 10000 \(limit maxFileBytes\)/.test(r.error));
  });

  it('given 30,000 distinct keys (12 s in the yaml package by default, its duplicate check is quadratic) should parse them all', function () {
    // NOTE: what is checked is the outcome; the cost is measured by hand (see the report), never timed here.
    this.timeout(120_000);
    const [d] = docs(manyKeys(30_000));
    assert.equal(Object.keys((d!.value as { spec: object }).spec).length, 30_000);
  });

  it('given a mapping of many duplicate keys should refuse it at the first duplicate', function () {
    this.timeout(120_000);
    const [d] = docs(`spec:\n${'  k: 1\n'.repeat(20_000)}`);
    assert.match(d!.error ?? '', /duplicate key "k" \(line 3\)/);
  });

  it('given the same text twice should give the same hash, and a changed document a different one', () => {
    const a = docs('x: 1\n---\ny: 1\n');
    const b = docs('x: 1\n---\ny: 2\n');
    assert.equal(a[0]!.hash, b[0]!.hash);
    assert.notEqual(a[1]!.hash, b[1]!.hash);
  });

  it('given an object with more keys than maxKeys should say so (the CRD source)', () => {
    assert.equal(objectLimitError({ spec: { a: 1, b: [{ c: 1 }] } }, { maxKeys: 4 }), undefined);
    assert.match(objectLimitError({ spec: { a: 1, b: [{ c: 1, d: 2 }] } }, { maxKeys: 4 }) ?? '', /more than 4 mapping keys/);
  });
});

describe('YamlWorkerParser', () => {
  it('given files on a worker thread should parse them in order with the limits', async () => {
    const p = new YamlWorkerParser({ limits: SMALL });
    try {
      const [a, b] = await Promise.all([p.parse(Buffer.from('a: *nope')), p.parse(Buffer.from('kind: B\n'))]);
      assert.ok(a.ok && /Unresolved alias/.test(a.documents[0]!.error ?? ''));
      assert.ok(b.ok);
      assert.deepEqual(b.documents[0]!.value, { kind: 'B' });
    } finally {
      await p.close();
    }
  });

  it('given a parse that runs past the time limit should refuse that file and parse the next on a fresh worker', async () => {
    const p = new YamlWorkerParser({ timeoutMs: 1 });
    try {
      // NOTE: 40,000 keys cannot parse within 1 ms, whatever the machine.
      const slow = await p.parse(Buffer.from(manyKeys(40_000)));
      assert.deepEqual(slow, { ok: false, error: 'parsing took longer than 1 ms' });
    } finally {
      await p.close();
    }
    const q = new YamlWorkerParser();
    try {
      const next = await q.parse(Buffer.from('kind: C\n'));
      assert.ok(next.ok);
    } finally {
      await q.close();
    }
  });

  it('given a parse that needs more memory than the worker may use should refuse that file, not crash', async () => {
    const p = new YamlWorkerParser({ maxHeapMb: 8, limits: { ...DEFAULT_YAML_LIMITS, maxKeys: 10_000_000 } });
    try {
      const r = await p.parse(Buffer.from(manyKeys(400_000)));
      assert.ok(!r.ok, 'the parse must fail');
      assert.match(r.error, /more than 8 MiB of memory|the YAML parser (failed|stopped)/);
    } finally {
      await p.close();
    }
  });

  it('given a closed parser should refuse further files', async () => {
    const p = new YamlWorkerParser();
    await p.close();
    assert.deepEqual(await p.parse(Buffer.from('a: 1')), { ok: false, error: 'the YAML parser is closed' });
  });
});
