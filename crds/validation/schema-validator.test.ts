import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadCorpus } from '../corpus.js';
import { KINDS } from '../kinds.js';
import { kindOf } from './kind-of.js';
import { compiledValidatorUrl, loadCompiledValidator, SchemaValidator, schemaHashOf } from './schema-validator.js';
import { writeCompiledValidators } from './write-compiled-validators.js';

describe('precompiled schema validators', function () {
  this.timeout(120_000);

  it('given the build should have a precompiled validator for every kind and its current schema', () => {
    const missing = Object.values(KINDS).filter((d) => loadCompiledValidator(d.kind, schemaHashOf(d)) === undefined).map((d) => d.kind);
    assert.deepEqual(missing, [], `run npm run build: no precompiled validator for ${missing.join(', ')}`);
  });

  it('given a schema the build did not precompile (another hash) should find no validator rather than a stale one', () => {
    assert.equal(loadCompiledValidator('VirtualService', '0000000000000000'), undefined);
  });

  it('given every corpus document should report the same schema issues from the precompiled validators as from ajv compiling here', () => {
    const precompiled = new SchemaValidator();
    const compiledHere = new SchemaValidator({ precompiled: false });
    let compared = 0;
    for (const doc of loadCorpus()) {
      const { apiVersion, kind } = doc.object as { apiVersion?: unknown; kind?: unknown };
      let definition;
      try {
        definition = kindOf(String(apiVersion), String(kind)).definition;
      } catch {
        continue; // not a mesh.io kind: the schema layer never sees it
      }
      assert.deepEqual(precompiled.validate(definition, doc.object), compiledHere.validate(definition, doc.object), doc.file);
      compared++;
    }
    assert.ok(compared > 20, `only ${compared} corpus documents compared`);
  });

  it('given a directory should write one file per kind named by its schema hash and remove stale ones', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mesh-validators-'));
    try {
      const url = pathToFileURL(`${dir}/`);
      const stale = join(dir, 'VirtualService-0000000000000000.cjs');
      writeCompiledValidators(url);
      assert.equal(readdirSync(dir).length, Object.keys(KINDS).length);
      rmSync(join(dir, readdirSync(dir)[0]!));
      writeFileSync(stale, 'module.exports = { default: () => true };\n'); // a leftover of an older schema
      writeCompiledValidators(url);
      assert.ok(!existsSync(stale), 'a stale validator was kept');
      const vs = KINDS.VirtualService;
      const name = compiledValidatorUrl(vs.kind, schemaHashOf(vs)).pathname.split('/').pop()!;
      assert.ok(readdirSync(dir).includes(name));
      assert.equal(readdirSync(dir).length, Object.keys(KINDS).length);
      // NOTE: every validator is in the eager form (ajv's standalone shape was recognised), see eagerValidatorModule.
      for (const f of readdirSync(dir)) assert.match(readFileSync(join(dir, f), 'utf8'), /var (validate\d+) = \(function \1\(.*\}\);\nmodule\.exports = \1;\nmodule\.exports\.default = \1;\n$/s, f);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
