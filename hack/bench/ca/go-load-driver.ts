// The grpc-go callers of bench:ca: builds hack/bench/ca/loadgen (a Go module; Go's build cache makes
// rebuilds quick) into the cache folder and talks to it over stdin/stdout (protocol in loadgen/main.go).
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { CallerTarget } from './callers.js';
import { encodeCertificateRequest } from './certificate-messages.js';
import type { LoadDriver, Phase, PhaseResult } from './load.js';

/** hack/bench/ca/loadgen in the source tree, found from this module (in dist/ or not). */
function loadgenSource(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'hack', 'bench', 'ca', 'loadgen');
    if (existsSync(join(candidate, 'go.mod'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('hack/bench/ca/loadgen: not found above this module');
    dir = parent;
  }
}

/** Builds the Go load generator; resolves to the binary's path. Fails loudly without Go. */
export async function buildGoLoadgen(): Promise<string> {
  const out = resolve(process.env.MESH_TEST_BIN_DIR ?? join(homedir(), '.cache', 'mesh', 'test-bin'), 'ca-loadgen');
  try {
    await promisify(execFile)('go', ['build', '-o', out, '.'], {
      cwd: loadgenSource(),
      env: { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: process.env.GOTOOLCHAIN ?? 'local', CGO_ENABLED: '0' },
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') throw new Error('--client go needs Go on PATH to build hack/bench/ca/loadgen (or use --client http2)');
    throw new Error(`building hack/bench/ca/loadgen failed: ${e.stderr?.trim() || e.message}`);
  }
  return out;
}

/** grpc-go callers in a child process. */
export class GoLoadDriver implements LoadDriver {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #lines: Interface;
  readonly #exited: Promise<string>;
  readonly #queued: string[] = [];
  #waiting: ((line: string) => void) | undefined;
  #stderr = '';

  private constructor(binary: string) {
    this.#child = spawn(binary, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.#child.stderr.on('data', (chunk: Buffer) => {
      this.#stderr += chunk.toString();
    });
    this.#lines = createInterface({ input: this.#child.stdout });
    this.#lines.on('line', (line) => {
      const waiting = this.#waiting;
      this.#waiting = undefined;
      if (waiting) waiting(line);
      else this.#queued.push(line);
    });
    this.#exited = new Promise((res) => this.#child.once('exit', (code) => res(`ca-loadgen exited with code ${code}: ${this.#stderr.trim()}`)));
  }

  /** Starts the callers, one connection each, and waits until they are warmed up. */
  static async start(binary: string, targets: readonly CallerTarget[], warmupSeconds: number): Promise<GoLoadDriver> {
    const driver = new GoLoadDriver(binary);
    const [first] = targets;
    if (!first) throw new Error('bench: no callers');
    driver.#send({
      address: first.address, serverName: first.serverName, rootCertPem: first.rootCertPem, warmupSeconds,
      ...(first.service ? { method: `/${first.service}/CreateCertificate` } : {}),
      callers: targets.map((t) => ({ token: t.token, request: Buffer.from(encodeCertificateRequest(t.csrPem)).toString('base64') })),
    });
    const ready = await driver.#nextLine();
    if (ready !== 'ready') throw new Error(`ca-loadgen: expected "ready", got ${ready}`);
    return driver;
  }

  async run(phase: Phase): Promise<PhaseResult> {
    this.#send(phase);
    return JSON.parse(await this.#nextLine()) as PhaseResult;
  }

  async close(): Promise<void> {
    this.#child.stdin.end();
    await this.#exited;
  }

  #send(message: unknown): void {
    this.#child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  async #nextLine(): Promise<string> {
    const queued = this.#queued.shift();
    if (queued !== undefined) return queued;
    const line = new Promise<string>((res) => {
      this.#waiting = res;
    });
    return Promise.race([line, this.#exited.then((why) => Promise.reject(new Error(why)))]);
  }
}
