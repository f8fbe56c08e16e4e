/**
 * `meshctl verify-install`: renders the MeshOperator of `-f`/`--revision` (the default one without them)
 * and checks that every object it holds exists in the cluster and is ready, one line per object.
 */
import { apiStatusOf, ApplyError, objectPathOf, objectRef, readiness, ResourceMapper, type ApplyClient, type ManifestObject } from '../../install/index.js';
import { CliError, type RunContext, type TextSink } from '../framework/index.js';
import { readInstallSpec, renderInstallObjects } from './install-spec.js';
import { meshctlOrchClient } from './meshctl-orch.js';

/**
 * Checks each object: present and ready. Writes `✔`/`✘` lines and a summary to `out`.
 * @returns 0 when all are present and ready, else 1
 */
export async function verifyObjects(client: ApplyClient, objects: readonly ManifestObject[], out: TextSink, signal?: AbortSignal): Promise<number> {
  const mapper = new ResourceMapper(client);
  let bad = 0;
  for (const o of objects) {
    const ref = objectRef(o);
    let problem = '';
    try {
      const info = await mapper.resolve(o.apiVersion, o.kind, signal);
      const live = await client.request<Record<string, unknown>>('GET', objectPathOf(info, o.name, o.namespace || undefined), { signal });
      const r = readiness(o.kind, live);
      if (!r.ready) problem = r.why;
    } catch (e) {
      if (apiStatusOf(e) === 404 || e instanceof ApplyError) problem = 'not found';
      else throw e;
    }
    if (problem === '') out.write(`✔ ${ref} is ready\n`);
    else {
      bad++;
      out.write(`✘ ${ref}: ${problem}\n`);
    }
  }
  if (bad > 0) {
    out.write(`✘ ${bad} of ${objects.length} objects are missing or not ready\n`);
    return 1;
  }
  out.write(`✔ Mesh is installed and verified successfully (${objects.length} objects)\n`);
  return 0;
}

/** The `run` of `meshctl verify-install`. */
export async function runVerifyInstall(ctx: RunContext): Promise<number> {
  const spec = readInstallSpec(ctx.flags, ctx.flags.strings('filename'));
  const objects = renderInstallObjects(spec);
  const client = meshctlOrchClient(ctx, 'meshctl verify-install');
  try {
    return await verifyObjects(client, objects, ctx.io.stdout);
  } catch (e) {
    throw new CliError(`meshctl verify-install: ${(e as Error).message}`);
  }
}
