/** Masterminds/semver v3 constraint checks, as Sprig's `semverCompare` uses them. */

interface Version { major: number; minor: number; patch: number; pre: string }

const VERSION = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z\-.]+))?(?:\+([0-9A-Za-z\-.]+))?$/;

/** Parses a version leniently (as semver.NewVersion: `v` prefix, missing minor/patch). */
export function parseVersion(s: string): Version {
  const m = VERSION.exec(s.trim());
  if (!m) throw new Error('Invalid Semantic Version');
  return { major: Number(m[1]), minor: Number(m[2] ?? 0), patch: Number(m[3] ?? 0), pre: m[4] ?? '' };
}

function comparePre(a: string, b: string): number {
  if (a === b) return 0;
  if (a === '') return 1;
  if (b === '') return -1;
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    if (pa[i] === undefined) return -1;
    if (pb[i] === undefined) return 1;
    const na = /^\d+$/.test(pa[i]);
    const nb = /^\d+$/.test(pb[i]);
    if (na && nb) { const d = Number(pa[i]) - Number(pb[i]); if (d) return Math.sign(d); continue; }
    if (na) return -1;
    if (nb) return 1;
    if (pa[i] !== pb[i]) return pa[i] < pb[i] ? -1 : 1;
  }
  return 0;
}

/** Compares two versions (-1, 0, 1). */
export function compareVersions(a: Version, b: Version): number {
  return Math.sign(a.major - b.major) || Math.sign(a.minor - b.minor) || Math.sign(a.patch - b.patch) || comparePre(a.pre, b.pre);
}

function checkOne(c: string, v: Version): boolean {
  const m = /^(=|!=|>=|=>|<=|=<|>|<|~>|~|\^)?\s*v?([0-9xX*]+(?:\.[0-9xX*]+)?(?:\.[0-9xX*]+)?(?:-[0-9A-Za-z\-.]+)?(?:\+[0-9A-Za-z\-.]+)?)$/.exec(c.trim());
  if (!m) throw new Error(`improper constraint: ${c}`);
  const op = m[1] ?? '';
  const parts = m[2].split(/[-+]/)[0].split('.');
  const wild = (p: string | undefined): boolean => p === undefined || /^[xX*]$/.test(p);
  const base = parseVersion(m[2].replace(/[xX*]/g, '0'));
  // Prereleases only match constraints that carry a prerelease.
  if (v.pre !== '' && base.pre === '') return false;
  const cmp = compareVersions(v, base);
  const lvl = wild(parts[0]) ? 0 : wild(parts[1]) ? 1 : wild(parts[2]) ? 2 : 3;
  const bump = (l: number): Version => (l <= 1 ? { major: base.major + 1, minor: 0, patch: 0, pre: '' } : { major: base.major, minor: base.minor + 1, patch: 0, pre: '' });
  switch (op) {
    case '':
    case '=':
      if (lvl === 0) return true;
      if (lvl < 3) return cmp >= 0 && compareVersions(v, bump(lvl)) < 0;
      return cmp === 0;
    case '!=':
      if (lvl < 3 && lvl > 0) return !(cmp >= 0 && compareVersions(v, bump(lvl)) < 0);
      return cmp !== 0;
    case '>': return lvl < 3 && lvl > 0 ? compareVersions(v, bump(lvl)) >= 0 : cmp > 0;
    case '>=': case '=>': return cmp >= 0;
    case '<': return cmp < 0;
    case '<=': case '=<': return lvl < 3 && lvl > 0 ? compareVersions(v, bump(lvl)) < 0 : cmp <= 0;
    case '~': case '~>': return cmp >= 0 && compareVersions(v, lvl === 1 ? bump(1) : bump(2)) < 0;
    case '^': {
      if (cmp < 0) return false;
      if (base.major > 0 || lvl === 1) return v.major === base.major;
      if (base.minor > 0 || lvl === 2) return v.major === 0 && v.minor === base.minor;
      return v.major === 0 && v.minor === 0 && v.patch === base.patch;
    }
  }
  return false;
}

/** Sprig's `semverCompare`: does `version` satisfy `constraint` (`||` of comma/space-separated ANDs, `a - b` ranges)? */
export function semverCompare(constraint: string, version: string): boolean {
  const v = parseVersion(version);
  return constraint.split('||').some((group) => {
    const g = group.trim().replace(/([0-9xX*]\S*)\s+-\s+(\S+)/g, '>=$1 <=$2');
    const parts = g.split(/\s*,\s*|\s+(?=[=!<>~^v0-9])/).filter((p) => p !== '');
    return parts.length > 0 && parts.every((p) => checkOne(p, v));
  });
}
