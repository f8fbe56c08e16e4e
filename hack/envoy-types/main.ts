/**
 * `npm run gen:envoy-types`: writes xds/envoy-types/<package>.ts from the protos meshd loads (see
 * render-envoy-types.ts) and removes generated files no longer rendered.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { protoRoot } from '../../xds/protos/index.js';
import { GENERATED_HEADER, renderEnvoyTypes } from './render-envoy-types.js';

/** The source folder of the generated files (from dist/hack/envoy-types/). */
const ENVOY_TYPES_DIR = fileURLToPath(new URL('../../../xds/envoy-types/', import.meta.url));

const files = renderEnvoyTypes(protoRoot());
let removed = 0;
for (const name of readdirSync(ENVOY_TYPES_DIR)) {
  if (files.has(name) || !name.endsWith('.ts')) continue;
  if (readFileSync(join(ENVOY_TYPES_DIR, name), 'utf8').startsWith(GENERATED_HEADER)) {
    rmSync(join(ENVOY_TYPES_DIR, name));
    removed++;
  }
}
for (const [name, text] of files) writeFileSync(join(ENVOY_TYPES_DIR, name), text);
process.stdout.write(`wrote ${files.size} files to ${ENVOY_TYPES_DIR}${removed > 0 ? `, removed ${removed}` : ''}\n`);
