// Differential tests: the TypeScript engine against Go's text/template + Sprig, through golden
// outputs that hack/templates-oracle/regen.sh produced with real Go (committed, so no Go is needed).
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, copyFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GoInt, type GoValue, typedMap, typedSlice } from './go-value.js';
import { newTemplateSet } from './index.js';

const corpusDir = fileURLToPath(new URL('../../templates/testdata/corpus/', import.meta.url));
const oracleDir = fileURLToPath(new URL('../../hack/templates-oracle/', import.meta.url));

interface Case { name: string; tmpl: string; data?: unknown; missingKey?: 'error' | 'zero'; helm?: boolean; defines?: [string, string][] }
interface Golden { name: string; output?: string; error?: string; phase?: string }

/** JSON corpus data to Go values, as the oracle's decode does ({"$int": n} and friends). */
function decode(v: unknown): GoValue {
  if (Array.isArray(v)) return v.map(decode);
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 1) {
      const [k, inner] = entries[0];
      if (k === '$int') return new GoInt(inner as number);
      if (k === '$int64') return new GoInt(inner as number, 'int64');
      if (k === '$strings') return typedSlice('string', inner as string[]);
      if (k === '$strmap') return typedMap('string', { ...(inner as Record<string, string>) });
    }
    return Object.fromEntries(entries.map(([k, x]) => [k, decode(x)]));
  }
  return v as GoValue;
}

function run(c: Case): Golden {
  const set = newTemplateSet({ helm: c.helm ?? false, missingKey: c.missingKey ?? 'default' });
  try {
    for (const [n, text] of c.defines ?? []) set.parse(n, text);
    set.parse(c.name, c.tmpl);
  } catch (e) {
    return { name: c.name, error: (e as Error).message, phase: 'parse' };
  }
  try {
    return { name: c.name, output: set.execute(c.name, c.data === undefined ? undefined : decode(c.data)) };
  } catch (e) {
    return { name: c.name, error: (e as Error).message, phase: 'exec' };
  }
}

const files = readdirSync(corpusDir).filter((f) => f.endsWith('.json') && !f.endsWith('.golden.json')).sort();

describe('templates corpus (differential against Go text/template + Sprig)', () => {
  it('given the committed corpus, should hold at least 150 cases', () => {
    const n = files.reduce((acc, f) => acc + (JSON.parse(readFileSync(join(corpusDir, f), 'utf8')) as Case[]).length, 0);
    assert.ok(n >= 150, `only ${n} cases`);
  });
  for (const f of files) {
    describe(f, () => {
      const cases = JSON.parse(readFileSync(join(corpusDir, f), 'utf8')) as Case[];
      const golden = JSON.parse(readFileSync(join(corpusDir, f.replace(/\.json$/, '.golden.json')), 'utf8')) as Golden[];
      cases.forEach((c, i) => {
        it(`given "${c.name}", should render what Go renders`, () => {
          const want = golden[i];
          assert.equal(want.name, c.name, 'golden file out of date: run hack/templates-oracle/regen.sh');
          const got = run(c);
          if (want.phase) {
            assert.equal(got.phase, want.phase, `Go failed (${want.error}); TS gave ${JSON.stringify(got)}`);
            assert.equal(got.error, want.error);
          } else {
            assert.equal(got.error, undefined, `Go rendered ${JSON.stringify(want.output)}; TS failed`);
            assert.equal(got.output, want.output ?? '');
          }
        });
      });
    });
  }
});

const hasGo = spawnSync('go', ['version']).status === 0;
// Skipped without Go on PATH (the committed goldens are still compared above) or with TEMPLATES_ORACLE=0.
(hasGo && process.env.TEMPLATES_ORACLE !== '0' ? describe : describe.skip)('templates oracle (when Go is on PATH; TEMPLATES_ORACLE=0 skips)', () => {
  it('given Go, should regenerate goldens identical to the committed ones', function () {
    this.timeout(120000);
    const tmp = mkdtempSync(join(tmpdir(), 'templates-corpus-'));
    try {
      for (const f of files) copyFileSync(join(corpusDir, f), join(tmp, f));
      execFileSync('go', ['run', '.', tmp], { cwd: oracleDir, stdio: 'pipe' });
      for (const f of files) {
        const g = f.replace(/\.json$/, '.golden.json');
        assert.equal(readFileSync(join(tmp, g), 'utf8'), readFileSync(join(corpusDir, g), 'utf8'), g);
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
