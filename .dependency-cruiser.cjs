// Dependency direction, as ARCHITECTURE.md draws it. cli/ wires everything; core/ imports no folder of
// ours; each folder imports only the folders its row allows, and only through their index.ts.
const folders = ['analysis', 'cli', 'core', 'templates', 'controllers', 'reconcilers', 'xds', 'ca', 'agent', 'crds', 'e2e', 'hack'];
const allowed = {
  core: [],
  templates: [],
  crds: [],
  analysis: ['core', 'crds'],
  controllers: ['core', 'crds'],
  reconcilers: ['core', 'controllers', 'crds'],
  xds: ['core', 'crds', 'ca'],
  ca: ['core'],
  agent: ['core', 'ca'],
};
const forbidden = Object.entries(allowed).map(([from, to]) => ({
  name: `${from}-imports-only-${to.join('-') || 'nothing-of-ours'}`,
  severity: 'error',
  from: { path: `^${from}/` },
  to: { path: `^(${folders.filter((f) => f !== from && !to.includes(f)).join('|')})/` },
}));
forbidden.push({
  name: 'only-through-index',
  comment: "Another folder's internals are reached only through its index.ts.",
  severity: 'error',
  from: { path: '^(analysis|cli|controllers|reconcilers|xds|ca|agent)/' },
  to: {
    path: '^(analysis|core|crds|controllers|ca|xds)/',
    pathNot: ['^(analysis|core|crds|controllers|ca|xds)/index\\.ts$', '^$1/'],
  },
});
forbidden.push({ name: 'no-circular', severity: 'error', from: {}, to: { circular: true } });
forbidden.push({ name: 'no-test-imports-in-prod', severity: 'error', from: { pathNot: '(\\.test\\.ts$|/testing/|^e2e/|^hack/)' }, to: { path: '(\\.test\\.ts$|/testing/)' } });
module.exports = {
  forbidden,
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^dist/|node_modules)' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
