/**
 * Loads the Envoy v3 protos shipped with @grpc/grpc-js-xds (and meshd's own, mesh-protos.ts) into one
 * protobufjs Root, once, on first use.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import protobuf from 'protobufjs';
import { MESH_ALPN_FILTER_PROTO, MESH_PROTOS } from './mesh-protos.js';

/** Thrown when a type name or type URL does not name a message in the loaded protos. */
export class UnknownTypeError extends Error {
  constructor(readonly typeName: string) {
    super(`unknown proto message type "${typeName}" (not in the Envoy v3 protos of @grpc/grpc-js-xds)`);
    this.name = 'UnknownTypeError';
  }
}

const IMPORT_RE = /^import\s+(?:public\s+|weak\s+)?"([^"]+)"/gm;

const require = createRequire(import.meta.url);

function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

function walk(dir: string, out: string[]): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (p.endsWith('.proto')) out.push(p);
  }
  return out;
}

/**
 * Every Envoy v3 proto whose imports all resolve (a few import protos that are not shipped: OpenCensus,
 * OpenTelemetry, Prometheus, Envoy v2), plus what they import. google/protobuf/* come from protobufjs.
 */
function loadRoot(): protobuf.Root {
  const deps = join(packageDir('@grpc/grpc-js-xds'), 'deps');
  const includeDirs = [
    join(deps, 'envoy-api'),
    join(deps, 'xds'),
    join(deps, 'googleapis'),
    join(deps, 'protoc-gen-validate'),
    packageDir('protobufjs'), // google/protobuf/descriptor.proto
  ];
  const locate = (target: string): string | undefined => {
    for (const d of includeDirs) {
      const p = join(d, target);
      if (existsSync(p)) return p;
    }
    return undefined;
  };
  const usable = new Map<string, boolean>();
  const isUsable = (file: string): boolean => {
    const known = usable.get(file);
    if (known !== undefined) return known;
    usable.set(file, true); // NOTE: optimistic for import cycles
    let ok = true;
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT_RE)) {
      const target = m[1]!;
      if (target.startsWith('google/protobuf/')) continue;
      const p = locate(target);
      if (!p || !isUsable(p)) {
        ok = false;
        break;
      }
    }
    usable.set(file, ok);
    return ok;
  };
  const envoyDir = join(deps, 'envoy-api');
  const files = walk(join(envoyDir, 'envoy'), [])
    .filter((f) => /\/v3\//.test(f) && isUsable(f))
    .map((f) => relative(envoyDir, f));
  // xDS/udpa types that appear inside Envoy Any fields (TypedStruct).
  for (const extra of ['xds/type/v3/typed_struct.proto', 'udpa/type/v1/typed_struct.proto']) if (locate(extra)) files.push(extra);

  const root = new protobuf.Root();
  root.resolvePath = (origin: string, target: string): string | null => {
    if (Object.prototype.hasOwnProperty.call(protobuf.common, target)) return target;
    return locate(target) ?? protobuf.util.path.resolve(origin, target);
  };
  root.loadSync(files, { keepCase: false });
  protobuf.parse(MESH_PROTOS, root, { keepCase: false });
  protobuf.parse(MESH_ALPN_FILTER_PROTO, root, { keepCase: false });
  root.resolveAll();
  return root;
}

let cached: protobuf.Root | undefined;

/** The shared Root (loaded on first call, ~0.5 s; then cached for the life of the process). */
export function protoRoot(): protobuf.Root {
  cached ??= loadRoot();
  return cached;
}

const typeCache = new Map<string, protobuf.Type>();

/** Strips `type.googleapis.com/` (or any prefix up to the last `/`) from a type URL. */
export function typeNameOf(typeNameOrUrl: string): string {
  const slash = typeNameOrUrl.lastIndexOf('/');
  const name = slash >= 0 ? typeNameOrUrl.slice(slash + 1) : typeNameOrUrl;
  return name.startsWith('.') ? name.slice(1) : name;
}

/** Looks up a message type by full name (`envoy.config.cluster.v3.Cluster`) or type URL; throws UnknownTypeError. */
export function lookupType(typeNameOrUrl: string): protobuf.Type {
  const name = typeNameOf(typeNameOrUrl);
  let t = typeCache.get(name);
  if (!t) {
    const found = protoRoot().lookup(name);
    if (!(found instanceof protobuf.Type)) throw new UnknownTypeError(typeNameOrUrl);
    t = found;
    typeCache.set(name, t);
  }
  return t;
}
