/**
 * The build's precompile of the schema validators: ajv standalone code for every kind, one CommonJS file per
 * kind named by its schema's hash, so a program validating mesh.io objects loads ready code instead of
 * compiling schemas (and loading ajv) at start-up.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv';
import { KINDS } from '../kinds.js';
import { compiledValidatorUrl, COMPILED_VALIDATORS_DIR, newAjv, objectSchema, schemaHashOf, toAjvSchema } from './schema-validator.js';

/** Writes one validator per kind into `dir` (default: beside the compiled schema validator) and removes stale ones; returns the files written. */
export function writeCompiledValidators(dir: URL = COMPILED_VALIDATORS_DIR): string[] {
  const { default: standaloneCode } = createRequire(import.meta.url)('ajv/dist/standalone/index.js') as {
    default: (ajv: ReturnType<typeof newAjv>, validate: ValidateFunction) => string;
  };
  const path = fileURLToPath(dir);
  mkdirSync(path, { recursive: true });
  const ajv = newAjv({ source: true });
  const written: string[] = [];
  for (const definition of Object.values(KINDS)) {
    const url = compiledValidatorUrl(definition.kind, schemaHashOf(definition));
    const target = new URL(url.pathname.slice(url.pathname.lastIndexOf('/') + 1), dir);
    writeFileSync(target, standaloneCode(ajv, ajv.compile(toAjvSchema(objectSchema(definition)) as object)));
    written.push(fileURLToPath(target));
  }
  const keep = new Set(written.map((w) => w.slice(w.lastIndexOf('/') + 1)));
  for (const name of readdirSync(path)) if (name.endsWith('.cjs') && !keep.has(name)) rmSync(new URL(name, dir));
  return written;
}
