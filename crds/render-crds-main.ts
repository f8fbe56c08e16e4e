/** Writes `crds/manifests/mesh-crds.yaml` from the schemas (`npm run gen:crds`, after a build). */
import { writeFileSync } from 'node:fs';
import { renderCrdsYaml } from './render-crds.js';
import { CRD_MANIFEST_PATH } from './source-paths.js';

writeFileSync(CRD_MANIFEST_PATH, renderCrdsYaml());
console.log(`wrote ${CRD_MANIFEST_PATH}`);
