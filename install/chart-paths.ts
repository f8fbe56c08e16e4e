import { fileURLToPath } from 'node:url';

// NOTE: code runs compiled from dist/install/; the charts live in manifests/charts/ of the source tree.
/** The folder holding the charts (`base`, `meshd`, `gateway`). */
export const CHARTS_DIR = fileURLToPath(new URL('../../manifests/charts/', import.meta.url));

/** The folder of chart `name`. */
export function chartDir(name: string): string {
  return `${CHARTS_DIR}${name}`;
}
