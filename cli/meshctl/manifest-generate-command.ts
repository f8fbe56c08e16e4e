/**
 * `meshctl manifest generate`: the effective MeshOperator (profile, `-f` files left to right, `--set`,
 * `--revision`) rendered with the install/ renderer, chart by chart, as `istioctl manifest generate`
 * does: to stdout (each release's `helm template` text in install order) or, with `-o DIR`, into Istio's
 * directory layout (`Base/Base.yaml`, `Base/Pilot/Pilot.yaml`, `Base/Pilot/IngressGateways/IngressGateways.yaml`, ...).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chartsDirOf, COMPONENT_DIR, COMPONENT_TITLE, parseComponentNames, renderMeshOperator, resolveMeshOperator, type ComponentName, type RenderedRelease } from '../../install/index.js';
import { notImplemented, type RunContext } from '../framework/index.js';

/** `--manifests/-d` (or the deprecated `--charts`): '' when neither is given. */
export function manifestsFlag(ctx: RunContext): string {
  return ctx.flags.string('manifests') || ctx.flags.string('charts');
}

/** The profiles folder of a `--manifests` folder in Istio's layout (`<dir>/profiles`), else undefined (the shipped ones). */
export function profilesDirOf(manifests: string): string | undefined {
  return manifests !== '' && chartsDirOf(manifests) === join(manifests, 'charts') ? join(manifests, 'profiles') : undefined;
}

/** Groups rendered releases by component, keeping install order. */
export function byComponent(releases: readonly RenderedRelease[]): Map<ComponentName, string> {
  const out = new Map<ComponentName, string>();
  for (const r of releases) out.set(r.component, (out.get(r.component) ?? '') + r.rendered.text);
  return out;
}

/** The `run` of `meshctl manifest generate`. */
export function runManifestGenerate(ctx: RunContext): number {
  const { flags, io } = ctx;
  if (flags.bool('cluster-specific')) notImplemented('manifest generate --cluster-specific');
  const manifests = manifestsFlag(ctx);
  const components = flags.strings('component').length > 0 ? parseComponentNames(flags.strings('component')) : undefined;
  const { spec } = resolveMeshOperator({
    files: flags.strings('filename'),
    sets: flags.strings('set'),
    revision: flags.string('revision'),
    profilesDir: profilesDirOf(manifests),
    onInvalid: flags.bool('force') ? (msg) => io.stderr.write(`Warning: ${msg} (proceeding: --force)\n`) : undefined,
  });
  const rendered = renderMeshOperator(spec, { chartsDir: manifests === '' ? undefined : chartsDirOf(manifests), components });
  const dir = flags.string('output');
  if (dir === '') {
    for (const r of rendered) io.stdout.write(r.rendered.text);
    return 0;
  }
  for (const [c, text] of byComponent(rendered)) {
    const sub = join(dir, COMPONENT_DIR[c]);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `${COMPONENT_TITLE[c]}.yaml`), text);
  }
  return 0;
}
