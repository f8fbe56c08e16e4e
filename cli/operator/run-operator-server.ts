/**
 * `operator server`: reads flags and environment once, builds logging and metrics, serves
 * self-monitoring on `--monitoring-host:--monitoring-port` and ControlZ, and runs until SIGTERM or
 * SIGINT. Reconciling MeshOperator resources is not built yet; the server says so in its log.
 */
import { createLogging, createMetrics, formatListenAddress, Lifecycle, loadEnv, SCOPES, startCtrlz, startMonitoringServer } from '../../core/index.js';
import type { FlagValues, RunContext } from '../framework/index.js';
import { logOptionsFrom } from '../common/logging-flags.js';
import { exitAfterShutdown } from '../common/exit-after-shutdown.js';

/** The operator's graceful shutdown time. */
export const OPERATOR_SHUTDOWN_MS = 10_000;

/** The typed options of `operator server`. */
export interface OperatorServerOptions {
  readonly orchconfig: string;
  readonly ctrlz: { readonly address: string; readonly port: number };
  readonly force: boolean;
  readonly maxConcurrentReconciles: number;
  /** `host:port` built from `--monitoring-host` and `--monitoring-port`. */
  readonly monitoringAddr: string;
}

/** Reads the server's flags into options. */
export function operatorServerOptionsFrom(flags: FlagValues): OperatorServerOptions {
  const reconciles = flags.number('max-concurrent-reconciles');
  if (reconciles < 1) throw new Error(`--max-concurrent-reconciles must be at least 1, not ${reconciles}`);
  const port = flags.number('monitoring-port');
  if (port > 65535) throw new Error(`--monitoring-port ${port}: not a port (0 to 65535)`);
  return {
    orchconfig: flags.string('orchconfig'),
    ctrlz: { address: flags.string('ctrlz_address'), port: flags.number('ctrlz_port') },
    force: flags.bool('force'),
    maxConcurrentReconciles: reconciles,
    monitoringAddr: formatListenAddress({ host: flags.string('monitoring-host'), port }),
  };
}

/** Runs the operator server until a signal; resolves with the exit code. */
export async function runOperatorServer(ctx: RunContext): Promise<number> {
  const env = loadEnv('operator', ctx.io.env);
  const options = operatorServerOptionsFrom(ctx.flags);
  const logging = createLogging(logOptionsFrom(ctx.flags), SCOPES.operator);
  const metrics = createMetrics('operator');
  const lifecycle = new Lifecycle();
  lifecycle.add('logging', () => logging.close());
  // NOTE: listen for signals before starting anything: a SIGTERM during start-up stops cleanly.
  const stopped = lifecycle.runUntilSignal(OPERATOR_SHUTDOWN_MS);
  try {
    const monitoring = await startMonitoringServer({ address: options.monitoringAddr, flagName: 'monitoring-port', metrics });
    lifecycle.add('monitoring', () => monitoring.close());
    const ctrlz = await startCtrlz({ address: options.ctrlz.address, port: options.ctrlz.port, logging, metrics, program: 'operator', env });
    lifecycle.add('ctrlz', () => ctrlz.close());
    logging.root.info({ monitoring: monitoring.address.port }, 'operator started');
    logging.root.warn({ what: 'operator server reconciliation' }, 'not implemented yet');
  } catch (e) {
    if (!lifecycle.closing) {
      await lifecycle.close(OPERATOR_SHUTDOWN_MS);
      throw e;
    }
  }
  return exitAfterShutdown(await stopped, OPERATOR_SHUTDOWN_MS, ctx.io.stderr);
}
