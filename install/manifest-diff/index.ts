/** install/manifest-diff: istioctl's object-level manifest comparison and a line diff. */
export { lineDiff } from './line-diff.js';
export { diffManifests, parseManifestObjects, ManifestDiffError, type ManifestDiffOptions } from './manifest-diff.js';
