/**
 * `meshctl experimental translate` (an extra command, not in the spec): the xDS meshd would serve one
 * sidecar for the given mesh.io files, as Envoy's config_dump JSON (ListenersConfigDump,
 * RoutesConfigDump, ClustersConfigDump, EndpointsConfigDump), built by meshd's own sidecar generators,
 * encoded, checked against the Envoy protos' validation rules, and cross-checked for consistency (every
 * route configuration, cluster and secret a resource names is served; names unique per type).
 */
import { command, flag, lazyRun, type Command } from '../framework/index.js';
import { EXIT_TRANSLATE_CHECK_FAILED } from './exit-codes.js';
import { offlineFlags } from './offline-flags.js';

/** The `translate` command. */
export function translateCommand(): Command {
  return command({
    name: 'translate',
    short: "Print the Envoy configuration meshd would serve a sidecar, from mesh.io files alone",
    long:
      'Builds, from files alone (no cluster, no running meshd), the LDS, RDS, CDS and EDS resources meshd\'s sidecar generators\n' +
      'would serve the sidecar named by --proxy, and prints them as Envoy\'s config_dump JSON (or YAML). Each resource is\n' +
      "encoded and checked against the Envoy protos' validation rules, and the whole is checked for consistency (every route\n" +
      'configuration, cluster and SDS secret named is served; names are unique). Problems go to standard error, starting\n' +
      `with CHECK FAILED, and the exit status is ${EXIT_TRANSLATE_CHECK_FAILED}; bad input files exit 1 with meshd's message.\n\n` +
      "meshd's environment variables shape the build as they shape meshd's (PILOT_HTTP10, ENABLE_AUTO_SNI,\n" +
      'PILOT_SIDECAR_USE_REMOTE_ADDRESS, PILOT_ENABLE_EDS_FOR_HEADLESS_SERVICES, ...), read and refused as meshd reads them.',
    example: '  meshctl x translate -f examples/bookinfo-sidecar --proxy default/productpage-v1 > productpage.json',
    flags: [...offlineFlags(), flag.string('output', 'json', 'Output format: one of json|yaml', { short: 'o' })],
    run: lazyRun(() => import('./translate-run.js'), (m) => m.runTranslate),
  });
}
