/**
 * The NDS generator: one unnamed `mesh.networking.nds.v1.NameTable` resource for a sidecar (see
 * name-table.ts), which pilot-agent asks for when it captures DNS and never passes on to the proxy.
 */
import type { Proxy, PushRequest } from '../../../core/index.js';
import { encode } from '../../protos/codec.js';
import { TYPE_URL, type GenerateResult, type TypeGenerator } from '../../server/contracts.js';
import type { GeneratorRegistry } from '../../server/generator-registry.js';
import { snapshotOf } from '../grpc-generator.js';
import { buildNameTable } from './name-table.js';

/** The message type of the name table. */
export const NAME_TABLE_MESSAGE = 'mesh.networking.nds.v1.NameTable';

/** Encodes the name table of `proxy` for `push`. */
export function generateNameTable(proxy: Proxy, push: PushRequest): GenerateResult {
  const table = Object.fromEntries(buildNameTable(proxy, snapshotOf(push)));
  return { resources: [{ name: '', body: encode(NAME_TABLE_MESSAGE, { table }) }] };
}

/** The NDS TypeGenerator. */
export const ndsGenerator: TypeGenerator = {
  typeUrl: TYPE_URL.nameTable,
  generate: (proxy, _watched, push) => generateNameTable(proxy, push),
};

/** Registers NDS for sidecars (routers and proxyless clients resolve no mesh names through an agent). */
export function registerNds(registry: GeneratorRegistry): void {
  registry.register({ proxyType: 'sidecar' }, ndsGenerator);
}
