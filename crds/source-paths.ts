import { fileURLToPath } from 'node:url';

// NOTE: code runs compiled from dist/crds/; the committed sources (manifests, testdata) live in crds/.
const SOURCE_DIR = fileURLToPath(new URL('../../crds/', import.meta.url));

/** The committed CRD manifest (`npm run gen:crds` writes it; a test checks it is current). */
export const CRD_MANIFEST_PATH = `${SOURCE_DIR}manifests/mesh-crds.yaml`;

/** The validation corpus: `valid/*.yaml` and `invalid/*.yaml`. */
export const CORPUS_DIR = `${SOURCE_DIR}testdata`;
