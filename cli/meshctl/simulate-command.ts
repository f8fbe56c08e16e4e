/**
 * `meshctl experimental simulate` (an extra command, not in the spec): from mesh.io files alone, where a
 * request from one sidecar would go and why. The files go through meshd's parser and model, the sidecar's
 * configuration through meshd's sidecar generators, and the request through the request simulator
 * (Envoy's matching: listener -> filter chain -> route configuration -> virtual host -> route -> clusters
 * -> endpoints), each step with the mesh.io objects that shaped it.
 */
import { command, flag, lazyRun, type Command } from '../framework/index.js';
import { offlineFlags } from './offline-flags.js';

/** The `simulate` command. */
export function simulateCommand(): Command {
  return command({
    name: 'simulate',
    short: 'Show where a request from a sidecar, or to a gateway, would go and why, from mesh.io files alone',
    long:
      'Builds, from files alone (no cluster, no running meshd), the Envoy configuration meshd would serve the sidecar named by\n' +
      '--proxy (the same parser, validation and generators as meshd), and walks one request through it as Envoy matches:\n' +
      'listener -> filter chain -> route configuration -> virtual host -> route -> clusters (with weights) -> endpoints,\n' +
      'naming the mesh.io objects (kind/namespace/name@generation) that shaped each step. meshd\'s environment variables\n' +
      '(PILOT_HTTP10, ENABLE_AUTO_SNI, ...) shape the build as they shape meshd\'s, read and refused as meshd reads them.\n\n' +
      'The request: [METHOD] URL [-H \'name: value\']... where URL is http://host[:port][/path][?query] (HTTP), https:// or\n' +
      'tls://host:port (TLS with SNI host, not terminated by the sidecar), or tcp://host:port. The host resolves as the app\'s\n' +
      'DNS would: a short name in the proxy\'s namespace, name.namespace, the FQDN or a ServiceEntry host, to the ServiceEntry\'s\n' +
      'address; an IP is used as is. A host no ServiceEntry names goes to the catch-all (outboundTrafficPolicy: ALLOW_ANY\n' +
      'passes it through, REGISTRY_ONLY blackholes it; set it with --meshConfigFile). `--unix-socket <path>` in the request\n' +
      '(as curl) connects to a Sidecar egress listener on that unix socket (`bind: unix://<path>`) instead of an address.\n\n' +
      'A router (gateway) proxy (--proxy-type router, or a WorkloadEntry whose labels a Gateway selects) is simulated as a\n' +
      'request arriving at the gateway: the URL\'s port is the gateway service\'s port, translated to the target port the\n' +
      'gateway listens on; https:// requests reach HTTPS servers by SNI and are routed as HTTP once terminated.\n\n' +
      'Inputs: ServiceEntry and WorkloadEntry describe services and workloads; Kubernetes Services (with their EndpointSlices,\n' +
      'Endpoints, or the files\' Pods their selector matches) become what meshd\'s orchestrator registry makes of them, and a Pod\n' +
      '(with status.podIP) is a proxy --proxy <namespace>/<pod> can name;\n' +
      'a document meshd would refuse fails the command with meshd\'s message (file, document, object, field). Exit 1 on bad input.',
    example:
      "  meshctl x simulate -f examples/bookinfo-sidecar --proxy default/productpage-v1 \\\n    --request \"GET http://reviews:9080/reviews/1 -H 'end-user: jason'\"\n" +
      '  meshctl x simulate -f examples/bookinfo-sidecar -p default/app=productpage tcp://mysqldb.data:3306 -o json\n' +
      '  meshctl x simulate -f examples/bookinfo-gateway -p mesh-system/ingressgateway-1 "GET http://bookinfo.example.com/productpage"',
    args: { usage: '[<request>...]' },
    flags: [
      ...offlineFlags(),
      flag.string('request', '', "The request: [METHOD] URL [-H 'name: value']... (or give it as arguments)", { short: 'r' }),
      flag.stringArray('header', [], "A request header 'name: value' (repeatable; added to the request's)", { short: 'H' }),
      flag.string('method', 'GET', 'The HTTP method (overrides the request\'s)', { short: 'X' }),
      flag.int('port', 0, "The destination port (overrides the URL's)"),
      flag.string('protocol', 'http', 'http, tcp or tls (overrides the URL scheme)'),
      flag.string('address', '', 'The destination IP the connection goes to (default: the ServiceEntry address the host resolves to)'),
      flag.string('sni', '', 'The TLS server name (default the host for https:// and tls://)'),
      flag.bool('inbound', false, 'Simulate a request arriving at the sidecar from a peer (virtualInbound, 15006) instead of leaving its app'),
      flag.bool('plaintext', false, 'With --inbound: the peer sends plaintext (no sidecar) instead of mesh mTLS'),
      flag.string('output', 'short', 'Output format: one of short|json|yaml', { short: 'o' }),
    ],
    run: lazyRun(() => import('./simulate-run.js'), (m) => m.runSimulate),
  });
}
