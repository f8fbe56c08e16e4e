/**
 * `meshctl uninstall`: deletes what meshctl installed, found by the installer's labels. `--revision` (or
 * `-f`/`--set revision=`) removes one revision's control plane and keeps the shared base (CRDs, default
 * validation); `--purge` removes every mesh object of every revision, revision tags included. Lists what
 * goes, asks unless `-y`, then deletes webhooks first and CRDs last and waits until the objects are gone.
 * The namespace stays (as with Istio, delete it yourself).
 */
import { COMPONENT_LABEL, ManifestApplier, objectRef, REVISION_LABEL, revisionLabelValue, TAG_LABEL, type LiveObject } from '../../install/index.js';
import { systemClock } from '../../core/index.js';
import { CliError, type RunContext } from '../framework/index.js';
import { confirm, interruptSignal, rethrowApplyFailure } from './install-run.js';
import { readInstallSpec } from './install-spec.js';
import { meshctlOrchClient } from './meshctl-orch.js';

/** How long uninstall waits for deleted objects to disappear (CRDs are finalized by the API server). */
const GONE_TIMEOUT_MS = 120_000;

/** The `run` of `meshctl uninstall`. */
export async function runUninstall(ctx: RunContext): Promise<number> {
  const { flags, io } = ctx;
  const file = flags.string('filename');
  const purge = flags.bool('purge');
  const spec = readInstallSpec(flags, file === '' ? [] : [file]);
  const revGiven = spec.owner.revision !== '' || file !== '';
  if (!purge && !revGiven) throw new CliError('at least one of the --revision (or --set revision=<revision>), --filename or --purge flags must be set');
  if (purge && revGiven) io.stderr.write('warning: --purge removes every revision: --revision and --filename are ignored\n');
  const selectors = purge
    ? [COMPONENT_LABEL, TAG_LABEL]
    : [`${COMPONENT_LABEL},${COMPONENT_LABEL}!=Base,${REVISION_LABEL}=${revisionLabelValue(spec.owner.revision)}`];
  const client = meshctlOrchClient(ctx, 'meshctl uninstall');
  const interrupt = interruptSignal();
  try {
    const applier = new ManifestApplier(client, { readinessTimeoutMs: 0, signal: interrupt.signal });
    const find = async (): Promise<LiveObject[]> => {
      const seen = new Map<string, LiveObject>();
      for (const s of selectors) for (const l of await applier.findLive(s)) seen.set(`${l.info.kind}/${l.namespace}/${l.name}`, l);
      return [...seen.values()];
    };
    const found = await find();
    if (found.length === 0) {
      io.stdout.write('Nothing to uninstall: no mesh object found.\n');
      return 0;
    }
    const refs = found.map((l) => objectRef({ kind: l.info.kind, name: l.name, namespace: l.namespace }));
    io.stdout.write(`${refs.map((r) => `  - ${r}\n`).join('')}${found.length} objects to remove.\n`);
    if (flags.bool('dry-run')) {
      io.stdout.write('Dry run: no changes made.\n');
      return 0;
    }
    if (!flags.bool('skip-confirmation')) {
      const what = purge ? 'all Mesh resources of every revision' : `the Mesh revision "${revisionLabelValue(spec.owner.revision)}"`;
      if (!(await confirm(ctx, `This will remove ${what} from the cluster. Proceed? (y/N) `))) {
        io.stdout.write('Cancelled.\n');
        return 1;
      }
    }
    // NOTE: found is in INSTALLED_KINDS order: webhooks first (no admission call reaches a removed meshd), CRDs last.
    for (const l of found) {
      await applier.deleteLive(l);
      if (flags.bool('verbose')) io.stdout.write(`  Removed ${objectRef({ kind: l.info.kind, name: l.name, namespace: l.namespace })}.\n`);
    }
    const deadline = systemClock.now() + GONE_TIMEOUT_MS;
    for (;;) {
      const left = await find();
      if (left.length === 0) break;
      if (systemClock.now() >= deadline) {
        // NOTE: the API server accepted every deletion; what is left is being finalized (a CRD deletes its instances first).
        io.stderr.write(`warning: still terminating ${GONE_TIMEOUT_MS} ms after deletion: ${left.map((l) => objectRef({ kind: l.info.kind, name: l.name, namespace: l.namespace })).join(', ')}\n`);
        break;
      }
      await systemClock.sleep(500, interrupt.signal, { keepAlive: true });
    }
    io.stdout.write(`✔ Uninstall complete (${found.length} objects removed)\n`);
    return 0;
  } catch (e) {
    return rethrowApplyFailure(e, interrupt);
  } finally {
    interrupt.dispose();
  }
}
