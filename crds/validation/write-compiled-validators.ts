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
    writeFileSync(target, eagerValidatorModule(standaloneCode(ajv, ajv.compile(toAjvSchema(objectSchema(definition)) as object))));
    written.push(fileURLToPath(target));
  }
  const keep = new Set(written.map((w) => w.slice(w.lastIndexOf('/') + 1)));
  for (const name of readdirSync(path)) if (name.endsWith('.cjs') && !keep.has(name)) rmSync(new URL(name, dir));
  return written;
}

/** ajv standalone's module shape: the exports first, then one top-level validator function declaration. */
const STANDALONE_EXPORTS = /module\.exports = (validate\d+);module\.exports\.default = \1;/;

/**
 * Rewrites one ajv standalone module so V8 compiles its validator eagerly: the declaration becomes a
 * parenthesized function expression, which V8 compiles with the module, so Node's compile cache keeps its code
 * and the first validation does not compile a function of several hundred KB (DestinationRule: 12 ms of
 * `meshctl validate`'s start-up). Code of another shape is returned unchanged (it still works, lazily).
 */
export function eagerValidatorModule(code: string): string {
  const exports = STANDALONE_EXPORTS.exec(code);
  if (!exports) return code;
  const name = exports[1]!;
  const declaration = `function ${name}(`;
  const at = code.indexOf(declaration);
  // NOTE: only when the validator is the module's last statement can its end be found without parsing.
  if (at < 0 || code.indexOf(declaration, at + 1) >= 0 || !code.trimEnd().endsWith('}')) return code;
  const body = code.replace(exports[0], '');
  const start = body.indexOf(declaration);
  return `${body.slice(0, start)}var ${name} = (${body.slice(start).trimEnd()});\nmodule.exports = ${name};\nmodule.exports.default = ${name};\n`;
}
