import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROGRAMS, type ProgramName } from '../program.js';
import { ENV_VARS, defaultFor, envVarDeclaration, programReads } from './env-vars.js';

interface SpecVariable {
  name: string;
  type: string;
  default: string | null;
  programs: 'all' | ProgramName;
  effect: string;
}

/** The spec table, found from the repo root (the folder holding package.json) as ../shared/spec. */
function readSpec(): SpecVariable[] {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  const text = readFileSync(join(dir, '..', 'shared', 'spec', 'env-vars.json'), 'utf8');
  return (JSON.parse(text) as { variables: SpecVariable[] }).variables;
}

describe('ENV_VARS', () => {
  const spec = readSpec();

  const fromSpec = ENV_VARS.filter((v) => !('platform' in v));

  it('given the spec table should declare every name exactly once', () => {
    const all = ENV_VARS.map((v) => v.name);
    assert.equal(new Set(all).size, all.length, 'a name is declared twice');
    assert.deepEqual(fromSpec.map((v) => v.name).sort(), [...new Set(spec.map((v) => v.name))].sort());
  });

  it('given the platform variables should declare none the spec lists', () => {
    const names = new Set(spec.map((v) => v.name));
    for (const v of ENV_VARS.filter((d) => 'platform' in d)) assert.ok(!names.has(v.name), `${v.name} is in the spec`);
  });

  for (const s of spec) {
    it(`given spec entry ${s.name} (${s.programs}) should match its type, default, programs and description`, () => {
      const d = envVarDeclaration(s.name);
      assert.ok(d, `${s.name} is not declared`);
      assert.equal(d.type, s.type);
      const programs = s.programs === 'all' ? PROGRAMS : [s.programs];
      for (const p of programs) {
        assert.ok(programReads(d, p), `${s.name} should be read by ${p}`);
        assert.equal(defaultFor(d, p), s.default, `default of ${s.name} for ${p}`);
      }
      const effects = spec.filter((o) => o.name === s.name).map((o) => o.effect);
      assert.ok(effects.includes(d.description), `description of ${s.name} is none of the spec's`);
    });
  }

  it('given each declaration should be read by exactly the programs the spec lists', () => {
    for (const d of fromSpec) {
      const listed = new Set(spec.filter((s) => s.name === d.name).flatMap((s) => (s.programs === 'all' ? PROGRAMS : [s.programs])));
      for (const p of PROGRAMS) assert.equal(programReads(d, p), listed.has(p), `${d.name} read by ${p}`);
    }
  });
});
