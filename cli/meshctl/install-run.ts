/**
 * The bodies of `meshctl install` (`apply`), `upgrade` and `manifest install`: read and validate the
 * MeshOperator, render it, show what will change (a server-side dry-run apply) and ask unless `-y`, then
 * apply with the install/ engine (field manager `meshctl`, `--force` takes over conflicting fields), wait
 * for readiness (`--readiness-timeout`) with a live view per component, prune what the manifest no
 * longer holds, and with `--verify` check every object. Ctrl-C stops between requests; the same command
 * run again finishes the job.
 */
import { createInterface } from 'node:readline/promises';
import { ApplyError, ManifestApplier, ownerSelector, type ManifestObject, type PlannedChange } from '../../install/index.js';
import { CliError, type RunContext } from '../framework/index.js';
import { plainProgress, type ProgressView } from './install-progress.js';
import { readInstallSpec, renderInstallObjects, validateInstallSpec } from './install-spec.js';
import { meshctlOrchClient } from './meshctl-orch.js';
import { verifyObjects } from './verify-install-run.js';

/** Prints a plan: one line per change that is not `unchanged`, then the totals. */
export function formatPlan(plan: readonly PlannedChange[]): string {
  const sign = { create: '+', update: '~', delete: '-', unchanged: ' ' } as const;
  const lines = plan.filter((c) => c.action !== 'unchanged').map((c) => `  ${sign[c.action]} ${c.object} (${c.component})${c.fields.length > 0 ? `: ${c.fields.join(', ')}` : ''}\n`);
  const n = (a: PlannedChange['action']): number => plan.filter((c) => c.action === a).length;
  return `${lines.join('')}${n('create')} to create, ${n('update')} to update, ${n('delete')} to delete, ${n('unchanged')} unchanged.\n`;
}

/** Whether the command runs on the process's own terminal (stdin a TTY, output the process's), so it can ask. */
export function canAsk(ctx: RunContext): boolean {
  return process.stdin.isTTY === true && ctx.io.stdout === process.stdout;
}

/**
 * Asks `question` on the terminal; without one (a pipe, a test's io) there is nobody to ask, so it refuses.
 * @throws CliError when {@link canAsk} is false
 */
export async function confirm(ctx: RunContext, question: string): Promise<boolean> {
  if (!canAsk(ctx)) throw new CliError(`refusing to proceed without confirmation (no terminal to ask "${question.trim()}"): pass -y (--skip-confirmation) to proceed`);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(question);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

/** An AbortSignal that fires on the first Ctrl-C (SIGINT) until `dispose` runs. */
export function interruptSignal(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onInt = (): void => controller.abort(new CliError('interrupted: nothing is left half-applied that running the same command again does not finish', 130));
  process.once('SIGINT', onInt);
  return { signal: controller.signal, dispose: () => process.off('SIGINT', onInt) };
}

/** Rethrows what an apply run failed with: the interrupt's reason when Ctrl-C stopped it, an ApplyError as a CliError. */
export function rethrowApplyFailure(e: unknown, interrupt: { readonly signal: AbortSignal }): never {
  if (interrupt.signal.aborted) throw interrupt.signal.reason as Error;
  if (e instanceof ApplyError) throw new CliError(e.message);
  throw e;
}

async function progressView(ctx: RunContext, objects: readonly ManifestObject[]): Promise<ProgressView> {
  if (ctx.io.stdout === process.stdout && process.stdout.isTTY === true) {
    const { inkProgress } = await import('./install-progress-view.js');
    return inkProgress(objects);
  }
  return plainProgress(objects, ctx.io.stdout);
}

type Mode = 'install' | 'upgrade';

async function runApply(ctx: RunContext, mode: Mode): Promise<number> {
  const { flags, io } = ctx;
  const spec = readInstallSpec(flags, flags.strings('filename'));
  const problems = validateInstallSpec(spec);
  if (problems.length > 0) {
    if (!flags.bool('force')) throw new CliError(`the MeshOperator is not valid (--force to proceed anyway):\n  ${problems.join('\n  ')}`);
    for (const p of problems) io.stderr.write(`warning: ${p}\n`);
  }
  const objects = renderInstallObjects(spec);
  const client = meshctlOrchClient(ctx, `meshctl ${ctx.path.slice(1).join(' ')}`);
  const interrupt = interruptSignal();
  let view: ProgressView | undefined;
  const selector = ownerSelector(spec.owner);
  try {
    const planner = new ManifestApplier(client, { force: flags.bool('force'), readinessTimeoutMs: flags.duration('readiness-timeout'), signal: interrupt.signal });
    const plan = await planner.plan(objects, selector);
    if (mode === 'upgrade' && plan.every((c) => c.action === 'create')) {
      throw new CliError(`no control plane of revision ${spec.owner.revision || 'default'} is installed to upgrade: use meshctl install`);
    }
    io.stdout.write(formatPlan(plan));
    if (flags.bool('dry-run')) {
      io.stdout.write('Dry run: no changes made.\n');
      return 0;
    }
    if (!flags.bool('skip-confirmation')) {
      const rev = spec.owner.revision || 'default';
      if (!(await confirm(ctx, `This will ${mode} the Mesh revision "${rev}" into the cluster. Proceed? (y/N) `))) {
        io.stdout.write('Cancelled.\n');
        return 1;
      }
    }
    view = await progressView(ctx, objects);
    const applier = new ManifestApplier(client, {
      force: flags.bool('force'),
      readinessTimeoutMs: flags.duration('readiness-timeout'),
      signal: interrupt.signal,
      onProgress: (p) => view?.update(p),
    });
    await applier.apply(objects, selector);
    view.close();
    view = undefined;
    io.stdout.write(`✔ Installation complete\n`);
    if (flags.bool('verify')) return await verifyObjects(client, objects, io.stdout, interrupt.signal);
    return 0;
  } catch (e) {
    return rethrowApplyFailure(e, interrupt);
  } finally {
    view?.close();
    interrupt.dispose();
  }
}

/** The `run` of `meshctl install` and `meshctl manifest install`. */
export function runInstall(ctx: RunContext): Promise<number> {
  return runApply(ctx, 'install');
}

/** The `run` of `meshctl upgrade`: as install, for a control plane that exists. */
export function runUpgrade(ctx: RunContext): Promise<number> {
  return runApply(ctx, 'upgrade');
}
