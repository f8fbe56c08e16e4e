/**
 * install: rendering the charts in manifests/charts as `helm template` does, shared by `meshctl manifest`
 * and the operator. Imports core, crds and templates.
 */
export { loadChart, type Chart, type ChartMetadata } from './load-chart.js';
export { coalesceValues, mergeValues } from './coalesce-values.js';
export { renderChart, DEFAULT_KUBE_VERSION, HELM_VERSION, type ReleaseOptions, type RenderedChart, type RenderedManifest } from './render-chart.js';
export { CHARTS_DIR, chartDir } from './chart-paths.js';
export * from './profiles/index.js';
export * from './manifest-diff/index.js';
export * from './apply/index.js';
