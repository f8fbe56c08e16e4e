/**
 * `npm run bench:analyze [-- <namespaces>]`: times `meshctl analyze`'s work without a cluster (parse +
 * every analyzer) over generated config: per namespace a Namespace, two Services, a Deployment, a Pod, a
 * VirtualService, a DestinationRule, a Gateway, a Sidecar and an AuthorizationPolicy (10 resources).
 */
import { performance } from 'node:perf_hooks';
import { ALL_ANALYZERS, resourcesFromText, runAnalysis } from '../../../analysis/index.js';

function namespaceYaml(i: number): string {
  const ns = `ns-${i}`;
  return `apiVersion: v1
kind: Namespace
metadata: { name: ${ns}, labels: { mesh-injection: enabled } }
---
apiVersion: v1
kind: Service
metadata: { name: app, namespace: ${ns} }
spec: { selector: { app: app }, ports: [{ name: http, port: 80, targetPort: 8080 }] }
---
apiVersion: v1
kind: Service
metadata: { name: gw, namespace: ${ns} }
spec: { selector: { gw: "${i}" }, ports: [{ name: http, port: 80, targetPort: 8080 }] }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: app, namespace: ${ns} }
spec:
  selector: { matchLabels: { app: app } }
  template:
    metadata: { labels: { app: app, version: v1 } }
    spec: { containers: [{ name: app, image: app }] }
---
apiVersion: v1
kind: Pod
metadata: { name: app-1, namespace: ${ns}, labels: { app: app, version: v1, gw: "${i}" } }
spec: { containers: [{ name: app, image: app }, { name: mesh-proxy, image: proxy }] }
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: app, namespace: ${ns} }
spec:
  hosts: [app, "app-${i}.example.com"]
  gateways: [gw, mesh]
  http:
  - match: [{ uri: { prefix: /v1 } }]
    route: [{ destination: { host: app, subset: v1 } }]
  - route: [{ destination: { host: app } }]
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: app, namespace: ${ns} }
spec: { host: app, subsets: [{ name: v1, labels: { version: v1 } }] }
---
apiVersion: networking.mesh.io/v1
kind: Gateway
metadata: { name: gw, namespace: ${ns} }
spec:
  selector: { gw: "${i}" }
  servers: [{ port: { number: 8080, name: http, protocol: HTTP }, hosts: ["app-${i}.example.com"] }]
---
apiVersion: networking.mesh.io/v1
kind: Sidecar
metadata: { name: default, namespace: ${ns} }
spec: { egress: [{ hosts: ["./*"] }] }
---
apiVersion: security.mesh.io/v1
kind: AuthorizationPolicy
metadata: { name: app, namespace: ${ns} }
spec: { selector: { matchLabels: { app: app } }, rules: [{ from: [{ source: { namespaces: ["ns-${i}"] } }] }] }
`;
}

const namespaces = Number(process.argv[2] ?? 40);
const text = Array.from({ length: namespaces }, (_, i) => namespaceYaml(i)).join('---\n');
for (let round = 0; round < 3; round++) {
  const t0 = performance.now();
  const { resources, problems } = resourcesFromText(text, 'bench.yaml', 'default');
  const t1 = performance.now();
  const { diagnostics } = runAnalysis(resources, ALL_ANALYZERS);
  const t2 = performance.now();
  process.stdout.write(
    `round ${round + 1}: ${resources.length} resources (${problems.length} problems), ${ALL_ANALYZERS.length} analyzers, ${diagnostics.length} findings: parse ${(t1 - t0).toFixed(1)} ms, analyze ${(t2 - t1).toFixed(1)} ms\n`,
  );
}
