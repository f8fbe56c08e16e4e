/** Test helpers: run a built program as a child process, find free ports, poll HTTP endpoints. */
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ProgramName } from '../../core/index.js';

/** The repository root (this file runs from dist/cli/testing/). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** An environment whose PATH finds this Node first (the launchers use `#!/usr/bin/env node`). */
export function programEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, PATH: [dirname(process.execPath), process.env['PATH'] ?? ''].join(delimiter), TERM: 'dumb', ...extra };
}

/** A running program with its output collected so far. */
export interface ProgramProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal name) once the process has ended. */
  readonly exited: Promise<number | string>;
}

/** Starts `bin/<program> ...args`. */
export function startProgram(program: ProgramName, args: readonly string[], env: NodeJS.ProcessEnv = programEnv()): ProgramProcess {
  const child = spawn(join(REPO_ROOT, 'bin', program), args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | string>((res) => child.on('close', (code, signal) => res(code ?? signal ?? 'unknown')));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs a program to completion. */
export async function runProgram(program: ProgramName, args: readonly string[], env?: NodeJS.ProcessEnv): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const p = startProgram(program, args, env);
  const code = await p.exited;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

/** Holds `n` distinct free loopback ports open while the caller decides, then releases them. */
export async function freePorts(n: number): Promise<number[]> {
  const servers: Server[] = [];
  for (let i = 0; i < n; i++) {
    const s = createServer();
    await new Promise<void>((res) => s.listen(0, '127.0.0.1', res));
    servers.push(s);
  }
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((res) => s.close(res))));
  return ports;
}

/** Listens on a free loopback port and keeps it busy until `close()`. */
export async function occupyPort(): Promise<{ port: number; close: () => Promise<void> }> {
  const s = createServer();
  await new Promise<void>((res) => s.listen(0, '127.0.0.1', res));
  return { port: (s.address() as AddressInfo).port, close: () => new Promise((res) => s.close(() => res())) };
}

/** One GET; rejects on connection errors. */
export function httpGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((res, rej) => {
    const req = request(url, { timeout: 5000 }, (r) => {
      let body = '';
      r.on('data', (d: Buffer) => (body += d.toString()));
      r.on('end', () => res({ status: r.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', rej);
    req.end();
  });
}

/**
 * Polls `url` until it answers 200, the process exits (an error with its stderr), or `deadlineMs`
 * passes.
 */
export async function waitForHttp(url: string, proc: ProgramProcess, deadlineMs = 15_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  let exited = false;
  void proc.exited.then(() => (exited = true));
  let last = '';
  while (Date.now() < deadline) {
    if (exited) throw new Error(`the program exited before ${url} answered: ${proc.stderr()}${proc.stdout()}`);
    try {
      const r = await httpGet(url);
      if (r.status === 200) return;
      last = `HTTP ${r.status}`;
    } catch (e) {
      last = (e as Error).message;
    }
    await sleep(50);
  }
  throw new Error(`${url} did not answer 200 in time (last: ${last}); stderr: ${proc.stderr()}`);
}
