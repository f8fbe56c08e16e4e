import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GoMap } from '../../templates/index.js';
import { componentReleases, listProfiles, MeshOperatorError, renderMeshOperator, resolveMeshOperator, type ComponentRelease } from '../index.js';

const release = (rs: ComponentRelease[], name: string): ComponentRelease => {
  const r = rs.find((x) => x.release === name);
  assert.ok(r, `release ${name} missing from ${rs.map((x) => x.release).join(', ')}`);
  return r;
};
const enabled = (spec: GoMap): string[] => componentReleases(spec).filter((r) => r.enabled).map((r) => `${r.component}/${r.release}`);

describe('resolveMeshOperator (profiles, -f, --set) and componentReleases', () => {
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'resolve-mo-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('given the shipped profiles, should list Istio\'s six', () => {
    assert.deepEqual(listProfiles(), ['default', 'demo', 'empty', 'minimal', 'preview', 'remote']);
  });

  const cases: { profile: string; want: string[] }[] = [
    { profile: 'default', want: ['base/base', 'pilot/meshd', 'ingressGateways/mesh-ingressgateway'] },
    { profile: 'demo', want: ['base/base', 'pilot/meshd', 'ingressGateways/mesh-ingressgateway', 'egressGateways/mesh-egressgateway'] },
    { profile: 'minimal', want: ['base/base', 'pilot/meshd'] },
    { profile: 'remote', want: ['base/base', 'pilot/meshd', 'ingressGateways/mesh-ingressgateway'] },
    { profile: 'empty', want: [] },
    { profile: 'preview', want: ['base/base', 'pilot/meshd', 'ingressGateways/mesh-ingressgateway'] },
  ];
  for (const c of cases) {
    it(`given profile ${c.profile}, should enable ${c.want.length === 0 ? 'nothing' : c.want.join(', ')}`, () => {
      const { profile, spec } = resolveMeshOperator({ sets: [`profile=${c.profile}`] });
      assert.equal(profile, c.profile);
      assert.deepEqual(enabled(spec), c.want);
    });
  }

  it('given profile demo, should map its k8s and gateway values to the charts\' keys over the default profile', () => {
    const rs = componentReleases(resolveMeshOperator({ sets: ['profile=demo'] }).spec);
    const meshd = release(rs, 'meshd');
    assert.deepEqual((meshd.values['pilot'] as GoMap)['env'], { PILOT_TRACE_SAMPLING: '100' });
    assert.equal((meshd.values['pilot'] as GoMap)['autoscaleEnabled'], false);
    assert.equal((meshd.values['meshConfig'] as GoMap)['accessLogFile'], '/dev/stdout');
    assert.equal(meshd.values['defaultRevision'], 'default', 'from the default profile under demo');
    const ingress = release(rs, 'mesh-ingressgateway');
    assert.deepEqual(ingress.values['autoscaling'], { enabled: false });
    assert.equal(((ingress.values['service'] as GoMap)['ports'] as GoMap[]).length, 5);
    const egress = release(rs, 'mesh-egressgateway');
    assert.equal((egress.values['service'] as GoMap)['type'], 'ClusterIP');
  });

  it('given profile in a file, then a second file, then --set, should apply them in that order (later wins, maps merge)', () => {
    const a = join(dir, 'a.yaml');
    const b = join(dir, 'b.yaml');
    writeFileSync(a, 'apiVersion: install.mesh.io/v1alpha1\nkind: MeshOperator\nspec:\n  profile: minimal\n  values:\n    pilot:\n      replicaCount: 2\n      traceSampling: 5\n');
    writeFileSync(b, 'kind: MeshOperator\nspec:\n  values:\n    pilot:\n      replicaCount: 3\n');
    const { profile, spec } = resolveMeshOperator({ files: [a, b], sets: ['values.pilot.traceSampling=7', 'components.ingressGateways[0].enabled=true'], revision: 'canary' });
    assert.equal(profile, 'minimal');
    const pilot = ((spec['values'] as GoMap)['pilot'] as GoMap);
    assert.equal(pilot['replicaCount'], 3);
    assert.equal(pilot['traceSampling'], 7);
    assert.equal(spec['revision'], 'canary');
    assert.deepEqual(enabled(spec), ['base/base', 'pilot/meshd', 'ingressGateways/mesh-ingressgateway'], 'the --set index addressed the minimal profile\'s gateway list');
    assert.equal(release(componentReleases(spec), 'mesh-ingressgateway').values['revision'], 'canary');
  });

  const bad: { name: string; opts: () => Parameters<typeof resolveMeshOperator>[0]; err: RegExp }[] = [
    { name: 'a misspelt component field', opts: () => ({ sets: ['components.pilot.enabld=true'] }), err: /--set components\.pilot\.enabld=true: invalid MeshOperator: spec\.components\.pilot\.enabld: unknown field/ },
    { name: 'a non-boolean enabled', opts: () => ({ sets: ['components.base.enabled=yes'] }), err: /spec\.components\.base\.enabled: must be of type boolean/ },
    { name: 'an unknown profile', opts: () => ({ sets: ['profile=nope'] }), err: /profile "nope" does not exist \(available: default, demo, empty, minimal, preview, remote\)/ },
    { name: 'a revision that is no DNS label', opts: () => ({ revision: 'Not_OK' }), err: /spec\.revision: .*/ },
    { name: 'a file of another kind', opts: () => {
      const f = join(dir, 'svc.yaml');
      writeFileSync(f, 'kind: Service\nspec: {}\n');
      return { files: [f] };
    }, err: /-f .*svc\.yaml: kind Service is not MeshOperator/ },
  ];
  for (const c of bad) {
    it(`given ${c.name}, should fail naming the input and the field`, () => {
      assert.throws(() => resolveMeshOperator(c.opts()), (e: unknown) => e instanceof MeshOperatorError && c.err.test(e.message));
    });
  }

  it('given a k8s setting with no chart value, should say not implemented yet naming the field', () => {
    const { spec } = resolveMeshOperator({ sets: ['components.pilot.k8s.strategy.type=Recreate'] });
    assert.throws(() => componentReleases(spec), /not implemented yet: spec\.components\.pilot\.k8s\.strategy/);
  });

  it('given --force semantics (onInvalid), should report the schema error and still resolve', () => {
    const seen: string[] = [];
    const { spec } = resolveMeshOperator({ sets: ['components.pilot.enabld=true'], onInvalid: (m) => seen.push(m) });
    assert.equal(seen.length, 1);
    assert.match(seen[0] ?? '', /spec\.components\.pilot\.enabld: unknown field/);
    assert.equal(((spec['components'] as GoMap)['pilot'] as GoMap)['enabled'], true);
  });

  it('given a selection of components, should render only those that are enabled', () => {
    const { spec } = resolveMeshOperator({ sets: ['profile=demo'] });
    const rs = renderMeshOperator(spec, { components: ['egressGateways', 'base'] });
    assert.deepEqual(rs.map((r) => r.release), ['base', 'mesh-egressgateway']);
    assert.match(rs[1]?.rendered.text ?? '', /type: ClusterIP/);
  });
});
