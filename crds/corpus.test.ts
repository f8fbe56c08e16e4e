import assert from 'node:assert/strict';
import { loadCorpus } from './corpus.js';
import { validateConfig } from './validation/validate-config.js';

const corpus = loadCorpus();

function show(issues: readonly { path: string; message: string; layer: string }[]): string {
  return issues.map((i) => `${i.layer} ${i.path}: ${i.message}`).join('\n');
}

describe('crds corpus', () => {
  it('given the corpus directory should hold valid and invalid documents', () => {
    assert.ok(corpus.filter((d) => d.valid).length >= 10);
    assert.ok(corpus.filter((d) => !d.valid).length >= 40);
  });

  for (const doc of corpus) {
    const name = `${doc.file}#${doc.index}`;
    if (doc.valid) {
      it(`given valid ${name} should accept it`, () => {
        const result = validateConfig(doc.object);
        assert.ok(result.ok, `expected accept, got:\n${result.ok ? '' : show(result.errors)}`);
        if (doc.expectWarning !== undefined) {
          assert.ok(
            result.warnings.some((w) => w.path === doc.expectWarning),
            `expected a warning at ${doc.expectWarning}, got:\n${show(result.warnings)}`,
          );
        } else {
          assert.deepEqual(result.warnings, []);
        }
      });
    } else {
      it(`given invalid ${name} should reject it at ${doc.expectError}`, () => {
        const result = validateConfig(doc.object);
        assert.ok(!result.ok, `expected reject at ${doc.expectError}`);
        const atPath = result.errors.filter((e) => e.path === doc.expectError);
        assert.ok(atPath.length > 0, `expected an error at ${doc.expectError}, got:\n${show(result.errors)}`);
        if (doc.semantic) {
          // The API server's schema accepts these, so no error may claim to be a schema error.
          assert.deepEqual(result.errors.filter((e) => e.layer !== 'semantic'), [], show(result.errors));
        } else {
          assert.ok(atPath.some((e) => e.layer === 'schema'), `expected a schema-layer error:\n${show(result.errors)}`);
        }
      });
    }
  }
});
