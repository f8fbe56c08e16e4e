/**
 * The built-in injection templates `sidecar`, `gateway`, `grpc-simple` and `grpc-agent`, read once from
 * `webhooks/templates/*.yaml` in the source tree (tsc copies no YAML into dist/; crds/ reads its
 * manifests the same way).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// NOTE: code runs compiled from dist/webhooks/; the template files live in webhooks/templates/.
const TEMPLATE_DIR = fileURLToPath(new URL('../../webhooks/templates/', import.meta.url));

/** Names of the built-in templates. */
export const BUILTIN_TEMPLATE_NAMES = ['sidecar', 'gateway', 'grpc-simple', 'grpc-agent'] as const;

/** Built-in template name -> Go template text. */
export const BUILTIN_TEMPLATES: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(BUILTIN_TEMPLATE_NAMES.map((n) => [n, readFileSync(`${TEMPLATE_DIR}${n}.yaml`, 'utf8')])),
);
