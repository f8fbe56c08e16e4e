/**
 * `npm start`: the quick start. Runs meshd on `examples/quickstart` with no cluster, two versions of an
 * Echo gRPC service, and a proxyless gRPC client, and shows a live table of where the client's calls go.
 * Editing `examples/quickstart/virtual-service.yaml` moves the traffic; an edit meshd rejects shows in the
 * table with its reason, while the last good version keeps being served.
 *
 *   npm start                      live table until Ctrl-C
 *   npm start -- --duration 10     run 10 s, print the table, exit (for scripts and tests)
 */
import { createWriteStream, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { render } from 'ink';
import { parseAllDocuments } from 'yaml';
import { startEchoBackend, type EchoBackend } from './echo-backend.js';
import { startMeshd } from './meshd-process.js';
import { startTraffic } from './traffic.js';
import { formatTraffic } from './traffic-table.js';
import { formatRejections, watchRejections } from './rejections.js';
import { LiveTable } from './live-table.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** The fields the quick start reads from the example documents. */
interface ExampleDoc {
  readonly kind?: string;
  readonly metadata?: { readonly name?: string };
  readonly spec?: {
    readonly hosts?: readonly string[];
    readonly ports?: ReadonlyArray<{ readonly number?: number }>;
    readonly labels?: Readonly<Record<string, string>>;
    readonly address?: string;
  };
}

interface Backend {
  readonly version: string;
  readonly address: string;
  readonly port: number;
}

/** The echo backends the config dir declares: WorkloadEntries labelled app=echo, on the ServiceEntry's port. */
function backendsOf(configDir: string): { host: string; port: number; backends: Backend[] } {
  const docs = readdirSync(configDir)
    .filter((f) => /\.ya?ml$/.test(f))
    .flatMap((f) => parseAllDocuments(readFileSync(join(configDir, f), 'utf8')).map((d) => d.toJSON() as ExampleDoc | null));
  const se = docs.find((d) => d?.kind === 'ServiceEntry' && d.metadata?.name === 'echo');
  if (!se) throw new Error(`${configDir}: no ServiceEntry named echo`);
  const port = Number(se.spec?.ports?.[0]?.number);
  const host = se.spec?.hosts?.[0];
  if (!host || !Number.isInteger(port)) throw new Error(`${configDir}: ServiceEntry echo needs a host and a port`);
  const backends = docs
    .filter((d) => d?.kind === 'WorkloadEntry' && d.spec?.labels?.['app'] === 'echo')
    .map((d) => ({ version: String(d?.spec?.labels?.['version']), address: String(d?.spec?.address), port }));
  return { host, port, backends };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string' },
      'config-dir': { type: 'string', default: join(REPO, 'examples', 'quickstart') },
      'grpc-port': { type: 'string', default: '15010' },
      'http-port': { type: 'string', default: '8080' },
      'monitoring-port': { type: 'string', default: '15014' },
      'ctrlz-port': { type: 'string', default: '9876' },
    },
  });
  const configDir = resolve(values['config-dir']);
  const { host, port, backends: declared } = backendsOf(configDir);
  const workDir = join(tmpdir(), 'mesh-quickstart');
  mkdirSync(workDir, { recursive: true });
  const logPath = join(workDir, 'meshd.log');
  const httpAddr = `127.0.0.1:${values['http-port']}`;
  const backends: EchoBackend[] = [];
  for (const b of declared) backends.push(await startEchoBackend(b.address, b.port, b.version));
  const meshd = await startMeshd({
    configDir,
    grpcAddr: `127.0.0.1:${values['grpc-port']}`,
    httpAddr,
    monitoringAddr: `127.0.0.1:${values['monitoring-port']}`,
    ctrlzPort: Number(values['ctrlz-port']),
    logFile: createWriteStream(logPath),
  });
  const target = `${host}:${port}`;
  const traffic = await startTraffic({
    xdsServer: `127.0.0.1:${values['grpc-port']}`,
    target: `xds:///${target}`,
    namespace: 'quickstart',
    callsPerSecond: 100,
    windowMs: 2000,
  });
  const rejections = watchRejections(httpAddr);
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    rejections.stop();
    traffic.stop();
    await meshd.stop();
    await Promise.all(backends.map((b) => b.close()));
  };
  const hints = [
    `Edit ${join(configDir, 'virtual-service.yaml')} and save: the traffic follows within a second.`,
    `meshd: http://${httpAddr}/debug/configz · log: ${logPath} · Ctrl-C to stop`,
  ];

  if (values.duration !== undefined || !process.stdout.isTTY) {
    // No terminal to redraw: print the table every two seconds, and once more at the end.
    const seconds = Number(values.duration ?? '0');
    console.log(hints.join('\n') + '\n');
    const table = (): string => [...formatTraffic(traffic.snapshot(), target), ...formatRejections(rejections.snapshot())].join('\n');
    const printer = setInterval(() => console.log(table() + '\n'), 2000);
    await new Promise<void>((done) => {
      process.once('SIGINT', done).once('SIGTERM', done);
      if (seconds > 0) setTimeout(done, seconds * 1000);
    });
    clearInterval(printer);
    console.log(table());
    await stop();
    process.exit(0);
  }
  const app = render(<LiveTable traffic={traffic} rejections={rejections} target={target} hints={hints} refreshMs={250} />, { exitOnCtrlC: false });
  const onSignal = (): void => {
    app.unmount();
    void stop().then(() => process.exit(0));
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
}

main().catch((err: unknown) => {
  console.error(`quick start failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
