/**
 * Remote Wasm in ECDS, made local (Istio's agent-side Wasm conversion): an extension config meshd sends
 * as an HTTP Wasm filter whose module is remote (`vm_config.code.remote`: an http(s):// or oci:// URL and
 * an optional sha256) is fetched through the Wasm cache and rewritten to `code.local.filename`, so the proxy
 * never downloads modules itself. A response without remote Wasm passes through untouched. A module that
 * cannot be fetched fails the whole response: the agent NACKs it to meshd with the reason and the proxy keeps
 * its last config. Metrics: `wasm_config_conversion_count{result}` (success, no_remote_load,
 * unmarshal_failure, fetch_failure, marshal_failure) and `wasm_config_conversion_duration` (milliseconds).
 */
import type { Metrics } from '../../core/index.js';
import { decode, encode } from '../xds-protos.js';
import type { WasmCache } from './wasm-cache.js';

const DISCOVERY_RESPONSE = 'envoy.service.discovery.v3.DiscoveryResponse';
const WASM_FILTER = 'type.googleapis.com/envoy.extensions.filters.http.wasm.v3.Wasm';

interface RemoteSource {
  httpUri?: { uri?: string };
  sha256?: string;
}

interface WasmTyped {
  '@type'?: string;
  config?: { vmConfig?: { code?: { local?: Record<string, unknown>; remote?: RemoteSource } } };
}

/** The outcome of a conversion: the bytes to pass to the proxy, or why to NACK. */
export type ConversionOutcome = { readonly bytes: Buffer } | { readonly nack: string; readonly nonce: string };

/** Converts one encoded ECDS DiscoveryResponse (see the file comment). */
export async function convertRemoteWasm(bytes: Buffer, cache: WasmCache, metrics: Metrics): Promise<ConversionOutcome> {
  const count = (result: string): void => metrics.counter('wasm_config_conversion_count').inc({ result });
  // NOTE: performance.now() measures for the metric only.
  const started = performance.now();
  let response: { nonce?: string; resources?: { '@type'?: string; typedConfig?: WasmTyped }[] };
  try {
    response = decode(DISCOVERY_RESPONSE, bytes) as typeof response;
  } catch (e) {
    count('unmarshal_failure');
    return { nack: `extension config response does not decode: ${(e as Error).message}`, nonce: '' };
  }
  const remotes = (response.resources ?? [])
    .map((r) => r.typedConfig)
    .filter((t): t is WasmTyped => t?.['@type'] === WASM_FILTER && t.config?.vmConfig?.code?.remote !== undefined);
  if (remotes.length === 0) {
    count('no_remote_load');
    return { bytes };
  }
  for (const t of remotes) {
    const code = t.config!.vmConfig!.code!;
    const url = code.remote!.httpUri?.uri ?? '';
    let path: string;
    try {
      path = await cache.get(url, code.remote!.sha256 || undefined);
    } catch (e) {
      count('fetch_failure');
      return { nack: `Wasm module ${url}: ${(e as Error).message}`, nonce: response.nonce ?? '' };
    }
    delete code.remote;
    code.local = { filename: path };
  }
  let out: Buffer;
  try {
    out = Buffer.from(encode(DISCOVERY_RESPONSE, response));
  } catch (e) {
    count('marshal_failure');
    return { nack: `extension config response does not encode after the conversion: ${(e as Error).message}`, nonce: response.nonce ?? '' };
  }
  count('success');
  metrics.histogram('wasm_config_conversion_duration').observe(performance.now() - started);
  return { bytes: out };
}
