// Dependency direction, as ARCHITECTURE.md draws it. cli/ wires everything; core/ imports no folder of
// ours; each folder imports only the folders its row allows, and only through their index.ts.
const folders = ['cli', 'core', 'templates', 'controllers', 'reconcilers', 'xds', 'ca', 'agent', 'crds', 'e2e', 'hack'];
const allowed = {
  core: [],
  templates: [],
  crds: [],
  controllers: ['core', 'crds'],
  reconcilers: ['core', 'controllers', 'crds'],
  xds: ['core', 'crds', 'ca'],
  ca: ['core'],
  agent: ['core', 'ca', 'xds'],
};
const forbidden = Object.entries(allowed).map(([from, to]) => ({
  name: `${from}-imports-only-${to.join('-') || 'nothing-of-ours'}`,
  severity: 'error',
  from: { path: `^${from}/` },
  to: { path: `^(${folders.filter((f) => f !== from && !to.includes(f)).join('|')})/` },
}));
// NOTE: agent/ reaches xds/'s proto layer only, through agent/xds-protos.ts, until that layer moves.
forbidden.push({
  name: 'agent-imports-only-the-xds-proto-layer',
  severity: 'error',
  from: { path: '^agent/' },
  to: { path: '^xds/', pathNot: '^xds/protos/index\\.ts$' },
});
forbidden.push({
  name: 'agent-reaches-protos-through-xds-protos-ts',
  severity: 'error',
  from: { path: '^agent/', pathNot: '^agent/xds-protos\\.ts$' },
  to: { path: '^xds/' },
});
forbidden.push({
  name: 'only-through-index',
  comment: "Another folder's internals are reached only through its index.ts.",
  severity: 'error',
  from: { path: '^(cli|controllers|reconcilers|xds|ca|agent)/' },
  to: {
    path: '^(core|crds|controllers|ca|xds)/',
    pathNot: ['^(core|crds|controllers|ca|xds)/index\\.ts$', '^xds/protos/index\\.ts$', '^$1/'],
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
