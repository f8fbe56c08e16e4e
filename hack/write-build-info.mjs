#!/usr/bin/env node
// Writes dist/build-info.json at build time: { version, gitCommit, gitTag, buildStatus }.
// core/version.ts reads it (nodeVersion is taken at run time). Outside a git checkout the git fields are
// "unknown". Run from the project root: node hack/write-build-info.mjs
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function git(...args) {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const gitCommit = git('rev-parse', 'HEAD') ?? 'unknown';
const status = git('status', '--porcelain', '--untracked-files=no');
const info = {
  version: pkg.version ?? 'unknown',
  gitCommit,
  gitTag: git('describe', '--tags', '--always', '--dirty') ?? 'unknown',
  buildStatus: status === undefined ? 'unknown' : status === '' ? 'Clean' : 'Modified',
};
const out = join(root, 'dist', 'build-info.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(info, null, 2)}\n`);
console.log(`build info: ${info.version} ${info.gitCommit.slice(0, 12)} ${info.buildStatus} -> dist/build-info.json`);
