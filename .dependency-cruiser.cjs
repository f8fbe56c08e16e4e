// Dependency direction, as ARCHITECTURE.md draws it. cli/ wires everything; core/ imports no folder of
// ours; each folder imports only the folders its row allows, and only through their index.ts.
const folders = ['analysis', 'cli', 'core', 'templates', 'webhooks', 'controllers', 'reconcilers', 'xds', 'ca', 'agent', 'crds', 'install', 'inspect', 'operator', 'e2e', 'hack'];
const allowed = {
  core: [],
  templates: [],
  webhooks: ['core', 'crds', 'templates'],
  crds: [],
  analysis: ['core', 'crds'],
  controllers: ['core', 'crds'],
  reconcilers: ['core', 'controllers', 'crds'],
  xds: ['core', 'crds', 'ca'],
  ca: ['core'],
  agent: ['core', 'ca', 'xds'],
  install: ['core', 'crds', 'templates'],
  inspect: ['core', 'crds', 'xds', 'analysis'],
  operator: ['core', 'crds', 'templates', 'install', 'controllers', 'reconcilers'],
};
// Folders that may import parts of another beyond its row above: agent/ uses xds/'s proto layer
// (type URLs, proto root, codec) for its xDS proxy and SDS server, and nothing else of xds/.
const alsoAllowed = { agent: { only: '^xds/protos/index\\.ts$' } };
const forbidden = Object.entries(allowed).map(([from, to]) => ({
  name: `${from}-imports-only-${to.join('-') || 'nothing-of-ours'}`,
  severity: 'error',
  from: { path: `^${from}/` },
  to: {
    path: `^(${folders.filter((f) => f !== from && !to.includes(f)).join('|')})/`,
    ...(alsoAllowed[from] ? { pathNot: alsoAllowed[from].only } : {}),
  },
}));
// Inside xds/: the transport (server/) and the proto layer know no generator; debug routes see only the
// generator contract; the assembly (discovery/) is the one place that joins server, generators and debug.
const xdsParts = [
  { from: 'xds/protos', not: ['xds/(server|cache|generators|debug|discovery|testing)/'], why: 'the proto layer stands alone (agent/ imports it)' },
  { from: 'xds/server', not: ['xds/(cache|generators|debug|discovery)/'], why: 'the transport knows generators only by their contract' },
  { from: 'xds/cache', not: ['xds/(server|generators|debug|discovery)/'], why: 'the cache holds bytes, nothing more' },
  { from: 'xds/debug', not: ['xds/(generators|cache|discovery)/'], why: 'debug routes depend on the generator contract, not a concrete generator' },
  { from: 'xds/generators', not: ['xds/(debug|discovery)/'], why: 'generators are assembled by xds/discovery, not the other way round' },
];
for (const p of xdsParts) {
  forbidden.push({
    name: `${p.from.replace('/', '-')}-layering`,
    comment: p.why,
    severity: 'error',
    from: { path: `^${p.from}/`, pathNot: '(\\.test\\.ts$|/testing/)' },
    to: { path: `^(${p.not.join('|')})` },
  });
}
// NOTE: agent/ reaches xds/'s proto layer (xds/protos/index.ts, see alsoAllowed) through one module, agent/xds-protos.ts.
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
  from: { path: '^(analysis|cli|controllers|reconcilers|xds|ca|agent|webhooks|install|inspect|operator)/' },
  to: {
    path: '^(analysis|core|crds|controllers|ca|xds|templates|webhooks|install|inspect|operator)/',
    pathNot: ['^(analysis|core|crds|controllers|ca|xds|templates|webhooks|install|inspect|operator)/index\\.ts$', '^xds/protos/index\\.ts$', '^core/startup\\.ts$', '^$1/'],
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
